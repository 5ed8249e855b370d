#!/usr/bin/env python3
"""Feature-vector invariance on the development set: after `spindle analyze --library DEVSET/audio-copy --db DB`,
    python3 scripts/devset_features.py DB [TRUTH]
prints how many transcodes lie closer (z-scored Euclidean distance over every dimension) to their own render
than to any other recording, and for each stretched copy its timbre distance to its source and to the nearest
other render."""
import sqlite3, struct, json, sys, math
db = sys.argv[1]
truth_path = sys.argv[2] if len(sys.argv) > 2 else '/tmp/devset/truth.json'
truth = json.load(open(truth_path))
truth = truth['files'] if isinstance(truth, dict) else truth
by = {e['path']: e for e in truth}
con = sqlite3.connect(db)
rows = con.execute("select f.path, a.features from analysis a join files f on f.id=a.file_id where a.features is not null").fetchall()
names = [r[0] for r in con.execute("select name from feature_dimensions where version=(select max(version) from feature_dimensions) order by position")]
vec = {p: struct.unpack('<%df' % (len(b)//4), b) for p, b in rows}
paths = sorted(vec)
n = len(names)
mu = [sum(vec[p][i] for p in paths)/len(paths) for i in range(n)]
sd = [math.sqrt(sum((vec[p][i]-mu[i])**2 for p in paths)/len(paths)) or 1 for i in range(n)]
z = {p: [(vec[p][i]-mu[i])/sd[i] for i in range(n)] for p in paths}
def d(a, b): return math.sqrt(sum((x-y)**2 for x, y in zip(z[a], z[b])))
renders = [p for p in paths if by.get(p, {}).get('set') == 'render']
def source_of(p):
    # transcoded/NAME.ext -> the render with the same stem
    stem = p.split('/')[-1].rsplit('.', 1)[0].replace('.noxing', '')
    for r in paths:
        if by.get(r, {}).get('set') in ('render', 'silence') and r.split('/')[-1].rsplit('.', 1)[0] == stem: return r
ok = 0; tot = 0; ratios = []
for p in paths:
    if by.get(p, {}).get('set') != 'transcode': continue
    src = source_of(p)
    if not src: continue
    tot += 1
    own = d(p, src)
    rec = lambda q: q.split('/')[-1].rsplit('.', 1)[0].replace('.noxing', '').split('__L')[0]
    other = min(d(p, r) for r in renders + [q for q in paths if by.get(q, {}).get('set') == 'silence'] if rec(r) != rec(src))
    ratios.append(own/other)
    ok += own < other
    if own >= other: print('FAIL', p, own, other)
print('transcodes closer to their own render than to any other render: %d/%d; own/nearest-other distance ratio: max %.3f, median %.3f' % (ok, tot, max(ratios), sorted(ratios)[len(ratios)//2]))
# stretch: timbre dims only
tim = [i for i, nm in enumerate(names) if not nm.startswith('chroma') and nm not in ('onset_rate', 'key_strength', 'minor')]
def dt(a, b): return math.sqrt(sum((z[a][i]-z[b][i])**2 for i in tim))
for p in paths:
    e = by.get(p, {})
    if e.get('set') != 'stretch': continue
    src = e['stretch_of']
    if src not in z: continue
    own = dt(p, src); other = min(dt(p, r) for r in renders if r != src)
    print('stretch %-50s x%.2f timbre distance to source %.2f, to nearest other render %.2f' % (p[-50:], e['factor'], own, other))
