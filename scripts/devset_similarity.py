#!/usr/bin/env python3
"""Similarity and clusters on the development set, side by side with an MFCC mean/std baseline.
After `spindle analyze --library DEVSET/audio-copy --db DB` and `spindle --db DB genres build`:
    python3 scripts/devset_similarity.py DB SPINDLE [TRUTH] [--baseline]
prints
  - cluster purity against (score render with drums, score render without drums, tracker music), over every
    clustered track (renders, transcodes, stretched and padded copies, each labelled as its source);
  - for each transcode, whether `spindle similar` gives another encoding of the same recording first;
  - for each tracker render whose package has another render, whether its nearest other recording comes
    from the same package (copies of the track itself are skipped);
  - for each render, whether its nearest other recording is of its kind (score, score with drums, tracker);
and, with --baseline (needs librosa, e.g. the devset's venv python), the same two neighbour figures for
20 MFCC means and standard deviations (librosa defaults, 22.05 kHz), z-scored, Euclidean.
With --groups (for a truth file whose renders carry an origin and a group, such as the tempo corpus's from
scripts/tempo_corpus.py: packages of game music, composers, song sets), it prints instead, per origin, how
many renders whose group has another render have their nearest other track in the same group."""
import json, os, sqlite3, subprocess, sys
from collections import Counter

args = [a for a in sys.argv[1:] if not a.startswith('--')]
db, spindle = args[0], args[1]
truth_path = args[2] if len(args) > 2 else '/tmp/devset/truth.json'
truth = json.load(open(truth_path))
truth = {e['path']: e for e in (truth['files'] if isinstance(truth, dict) else truth)}
con = sqlite3.connect(db)
root = con.execute('select path from library_roots').fetchone()[0]
paths = sorted(p for (p,) in con.execute("select f.path from files f join analysis a on a.file_id=f.id where a.features is not null"))

def stem(p):
    return p.split('/')[-1].rsplit('.', 1)[0].replace('.noxing', '')

def source(p):
    """The render a copy was made from (itself for a render)."""
    e = truth[p]
    if e['set'] == 'render': return p
    if e.get('stretch_of'): return e['stretch_of']
    s = stem(p).split('__L')[0]
    for q, f in truth.items():
        if f['set'] == 'render' and stem(q) == s: return q
    return p

def label(p):
    e = truth[source(p)]
    return 'tracker' if e['origin'] == 'tracker' else ('score+drums' if e.get('drums') else 'score')

groups_mode = '--groups' in sys.argv

# Clusters
rows = con.execute("""select g.name, f.path from genre_memberships m join composite_genres g on g.id=m.genre_id
                      join files f on f.id=m.file_id where g.kind='cluster'""").fetchall()
clusters = {}
for name, p in rows: clusters.setdefault(name, []).append(p)
if not groups_mode:
    clustered = sum(len(v) for v in clusters.values())
    majority = sum(Counter(label(p) for p in v).most_common(1)[0][1] for v in clusters.values())
    print('clusters: %d over %d tracks, purity %.3f' % (len(clusters), clustered, majority / max(1, clustered)))
    for name, v in sorted(clusters.items(), key=lambda kv: -len(kv[1])):
        print('  %-40s %3d  %s' % (name, len(v), dict(Counter(label(p) for p in v))))

def spindle_neighbours(p, n):
    out = subprocess.run([spindle, '--db', db, 'similar', '--json', '-n', str(n), p], capture_output=True, text=True)
    return [x['path'] for x in json.loads(out.stdout)['neighbours']]

transcodes = [p for p in paths if truth[p]['set'] == 'transcode']
package = lambda p: truth[source(p)].get('group')
renders = [p for p in paths if truth[p]['set'] == 'render']
tracker = [p for p in renders if truth[p]['origin'] == 'tracker'
           and sum(1 for q in renders if package(q) == package(p)) >= 2]

def score(neighbours_of):
    same_rec = sum(source(neighbours_of(p, 1)[0]) == source(p) for p in transcodes)
    same_pkg = 0
    for p in tracker:
        others = [q for q in neighbours_of(p, 25) if source(q) != source(p)]
        same_pkg += bool(others) and package(others[0]) == package(p)
    same_kind = 0
    for p in renders:
        others = [q for q in neighbours_of(p, 25) if source(q) != source(p)]
        same_kind += bool(others) and label(others[0]) == label(p)
    return same_rec, same_pkg, same_kind

group_of = lambda p: (truth[source(p)]['origin'], truth[source(p)].get('group'))
group_sizes = Counter(group_of(p) for p in renders)
grouped = [p for p in renders if group_of(p)[1] and group_sizes[group_of(p)] >= 2]

def group_score(neighbours_of):
    """Per origin: (renders whose nearest other track is of their group, renders asked)."""
    out = {}
    for p in grouped:
        right, asked = out.get(group_of(p)[0], (0, 0))
        out[group_of(p)[0]] = (right + (group_of(neighbours_of(p, 1)[0]) == group_of(p)), asked + 1)
    return out

def show_groups(tool, counts):
    right, asked = sum(r for r, _ in counts.values()), sum(n for _, n in counts.values())
    print('%s: nearest other track from the same group %d/%d (%s)' % (tool, right, asked,
          ', '.join('%s %d/%d' % (o, r, n) for o, (r, n) in sorted(counts.items()))))

if groups_mode:
    show_groups('spindle similar', group_score(spindle_neighbours))
else:
    s = score(spindle_neighbours)
    print('spindle similar: transcode nearest is the same recording %d/%d; tracker nearest other recording from the same package %d/%d; '
          'render nearest other recording of its kind %d/%d' % (s[0], len(transcodes), s[1], len(tracker), s[2], len(renders)))

if '--baseline' in sys.argv:
    import numpy as np, librosa
    feats = {}
    for p in paths:
        y, sr = librosa.load(os.path.join(root, p), sr=22050, mono=True)
        m = librosa.feature.mfcc(y=y, sr=sr, n_mfcc=20)
        feats[p] = np.concatenate([m.mean(1), m.std(1)])
    X = np.array([feats[p] for p in paths])
    Z = (X - X.mean(0)) / (X.std(0) + 1e-9)
    index = {p: i for i, p in enumerate(paths)}
    def base_neighbours(p, n):
        d = np.sqrt(((Z - Z[index[p]]) ** 2).sum(1))
        d[index[p]] = np.inf
        return [paths[i] for i in np.argsort(d, kind='stable')[:n]]
    if groups_mode:
        show_groups('MFCC mean/std baseline', group_score(base_neighbours))
        sys.exit(0)
    b = score(base_neighbours)
    print('MFCC mean/std baseline: transcode nearest is the same recording %d/%d; tracker nearest other recording from the same package %d/%d; '
          'render nearest other recording of its kind %d/%d' % (b[0], len(transcodes), b[1], len(tracker), b[2], len(renders)))
