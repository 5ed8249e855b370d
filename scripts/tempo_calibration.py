#!/usr/bin/env python3
"""How well `bpm_confidence` predicts a right tempo, per split, on the development set or the tempo corpus:

    find DEVSET/audio -type f | sort | tr '\\n' '\\0' | xargs -0 spindle inspect --json > out.jsonl
    python3 scripts/tempo_calibration.py DEVSET/truth.json out.jsonl [--peers DEVSET/peers [--consensus]]

For each split: the share of tracks at confidence 0.5 or more and how many of them are right (within 4 %),
the right share per confidence decile, how well the confidence ranks right tempos above wrong ones (AUC),
and how often the truth is `bpm` or `bpm_alternative`; then per
origin, Acc1 (within 4 %) and Acc2 (also ×2, ×3, ×½, ×⅓, as score_devset.py counts them), and with --peers
the same for each peer's NAME.jsonl (from peers_devset.py), over the renders (set "render"), also for
origins score_devset.py does not show. Where the truth has the beat grid (`first_beat_s`), it also tells,
among the right tempos, how often Spindle's grid (`first_beat_s + k · 60 / bpm`) lies on the beats (within
10 % of a beat) and how often on the off-beats (half a beat away), at the first beat and at the last.
With --consensus (needs --peers), entries without a known tempo (the corpus's `soundtracks`) are scored
against the tempo three or more peers agree on (within 4 %), where they do: Spindle against the consensus of
all the peers, each peer against the consensus of the others, with Spindle's disagreements by ratio. A
consensus is not the truth (the peers share a prior around 120 BPM), but where several independent
estimators agree on music nobody tuned on, a tool that disagrees is usually the one that is wrong.
Results are matched to truth entries by their path relative to the audio folder (the last two path
components). Where entries carry a key truth (the devset's renders, the corpus's score renders and songs),
it also prints, per origin, the exact key share and the mean MIREX score of Spindle and of each key peer
(NAME-key.jsonl), with score_devset.py's scoring (DEVSET_CODE, default ../shared/devset)."""
import glob
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.environ.get("DEVSET_CODE", str(Path(__file__).resolve().parent.parent.parent / "shared" / "devset")))
from score_devset import key_score, parse_key  # noqa: E402

FACTORS = (1.0, 2.0, 3.0, 0.5, 1.0 / 3.0)


def right(estimate, truth):
    return estimate is not None and truth > 0 and abs(estimate / truth - 1) <= 0.04


def load(path):
    """A tool's results by their path's last two components."""
    results = {}
    for line in open(path):
        line = line.strip()
        if line:
            r = json.loads(line)
            results["/".join(r["path"].split("/")[-2:])] = r
    return results


def accuracy(entries, tools):
    """Acc1 / Acc2 per split and origin, one row per tool."""
    groups = sorted({(e.get("split", "all"), e.get("origin", "?")) for e in entries.values()})
    print("Acc1/Acc2 %% per split and origin: %s" % ", ".join("%s %s (%d)" % (s, o, sum(
        1 for e in entries.values() if (e.get("split", "all"), e.get("origin", "?")) == (s, o))) for s, o in groups))
    for name, results in tools:
        cells = []
        for group in groups:
            rows = [(results.get("/".join(p.split("/")[-2:]), {}).get("bpm"), e["bpm"]) for p, e in entries.items()
                    if (e.get("split", "all"), e.get("origin", "?")) == group]
            a1 = sum(right(b, t) for b, t in rows)
            a2 = sum(any(right(b, t * f) for f in FACTORS) for b, t in rows)
            cells.append("%3.0f/%3.0f" % (100 * a1 / len(rows), 100 * a2 / len(rows)))
        print("  %-20s %s" % (name, "  ".join(cells)))


def keys(entries, tools):
    """Exact key share and mean MIREX score per origin, over the entries with a key truth."""
    groups = sorted({e.get("origin", "?") for e in entries.values()})
    print("key exact %% / MIREX per origin: %s" % ", ".join(
        "%s (%d)" % (o, sum(1 for e in entries.values() if e.get("origin", "?") == o)) for o in groups))
    for name, results in tools:
        cells = []
        for origin in groups:
            rows = [(parse_key(e), results.get("/".join(p.split("/")[-2:]), {})) for p, e in entries.items()
                    if e.get("origin", "?") == origin]
            scores = [key_score(truth, parse_key(r)) for truth, r in rows]
            cells.append("%3.0f %.3f" % (100 * sum(s == 1 for s in scores) / len(scores), sum(scores) / len(scores)))
        print("  %-20s %s" % (name, "   ".join(cells)))


def phase(entries, results):
    """Where Spindle's beat grid lies against the true one, for the right tempos of entries that have it: at
    the first beat, and at the track's last (where a crossfade lands, and any error in `bpm` has added up)."""
    starts, ends = [], []
    for path, e in entries.items():
        r = results.get("/".join(path.split("/")[-2:]))
        if "first_beat_s" not in e or r is None or r.get("first_beat_s") is None:
            continue
        if not right(r.get("bpm"), e["bpm"]):
            continue
        beat, ours = 60 / e["bpm"], 60 / r["bpm"]
        # Signed distance to the nearest true beat, in beats (−0.5 ..< 0.5).
        starts.append(((r["first_beat_s"] - e["first_beat_s"]) / beat + 0.5) % 1 - 0.5)
        if e.get("duration_s"):
            last = r["first_beat_s"] + ((e["duration_s"] - r["first_beat_s"]) // ours) * ours
            ends.append(((last - e["first_beat_s"]) / beat + 0.5) % 1 - 0.5)
    for where, offsets in (("first beat", starts), ("last beat", ends)):
        if offsets:
            on = sum(abs(o) <= 0.1 for o in offsets)
            off = sum(abs(o) >= 0.4 for o in offsets)
            print("beat grid at the %s, over %d right tempos with a true grid: on the beats %d, on the off-beats %d, "
                  "elsewhere %d" % (where, len(offsets), on, off, len(offsets) - on - off))


RATIOS = ((1, "="), (2, "x2"), (0.5, "x1/2"), (1.5, "x3/2"), (2 / 3, "x2/3"), (3, "x3"), (1 / 3, "x1/3"),
          (4 / 3, "x4/3"), (0.75, "x3/4"))


def agreed(tempos):
    """The tempo at least three of `tempos` agree on within 4 %, or None."""
    best = None
    for c in tempos:
        n = sum(right(t, c) for t in tempos)
        if n >= 3 and (best is None or n > best[1]):
            best = (c, n)
    return best and best[0]


def consensus(entries, tools):
    """Entries without a tempo, against the consensus of the peers (for a peer, of the other peers)."""
    unknown = [p for p, e in entries.items() if "bpm" not in e]
    if not unknown:
        return
    key = lambda p: "/".join(p.split("/")[-2:])
    peers = tools[1:]
    print("consensus of 3 or more of the other tools among %s, over %d tracks without a known tempo:"
          % (", ".join(n for n, _ in peers), len(unknown)))
    for name, results in tools:
        others = [r for n, r in peers if n != name]
        scored, ratios = 0, {}
        for p in unknown:
            c = agreed([r.get(key(p), {}).get("bpm") for r in others if r.get(key(p), {}).get("bpm")])
            b = results.get(key(p), {}).get("bpm")
            if c is None or b is None:
                continue
            scored += 1
            label = next((l for f, l in RATIOS if right(b, c * f)), "other")
            ratios[label] = ratios.get(label, 0) + 1
        agree = ratios.pop("=", 0)
        print("  %-20s agrees on %d of %d (%.0f %%)%s" % (
            name, agree, scored, 100 * agree / max(1, scored),
            "; elsewhere " + ", ".join("%s %d" % kv for kv in sorted(ratios.items(), key=lambda kv: -kv[1]))
            if ratios else ""))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    peers = sys.argv[sys.argv.index("--peers") + 1] if "--peers" in sys.argv else None
    if peers:
        args.remove(peers)
    if "--consensus" in sys.argv and not peers:
        raise SystemExit("--consensus needs --peers")
    if len(args) != 2:
        raise SystemExit(__doc__)
    truth = json.load(open(args[0]))
    everything = {e["path"]: e for e in (truth["files"] if isinstance(truth, dict) else truth)}
    entries = {p: e for p, e in everything.items() if "bpm" in e}
    results = load(args[1])
    splits = {}
    for path, e in entries.items():
        r = results.get("/".join(path.split("/")[-2:]))
        if r is None:
            continue
        splits.setdefault(e.get("split", "all"), []).append(
            (r.get("bpm_confidence") or 0, right(r.get("bpm"), e["bpm"]),
             right(r.get("bpm"), e["bpm"]) or right(r.get("bpm_alternative"), e["bpm"])))
    for split, points in sorted(splits.items()):
        sure = [ok for c, ok, _ in points if c >= 0.5]
        print("%s: %d tracks; confidence >= 0.5: %d (%.0f %%), right %d (%.1f %%); truth in bpm or alternative: %d (%.0f %%)"
              % (split, len(points), len(sure), 100 * len(sure) / len(points), sum(sure),
                 100 * sum(sure) / max(1, len(sure)), sum(e for _, _, e in points),
                 100 * sum(e for _, _, e in points) / len(points)))
        deciles = []
        for d in range(10):
            inside = [ok for c, ok, _ in points if d / 10 <= c < (d + 1) / 10 or (d == 9 and c >= 1)]
            deciles.append("%.1f: %d/%d" % (d / 10, sum(inside), len(inside)))
        print("  right / tracks per decile: " + ", ".join(deciles))
        # How well the confidence ranks right tempos above wrong ones, whatever the threshold: the chance that a
        # right track's confidence is above a wrong one's (ties count half). 0.5 is no better than a coin.
        rights = [c for c, ok, _ in points if ok]
        wrongs = [c for c, ok, _ in points if not ok]
        if rights and wrongs:
            above = sum((a > b) + 0.5 * (a == b) for a in rights for b in wrongs)
            print("  right ranked above wrong (AUC): %.2f" % (above / (len(rights) * len(wrongs))))
    tools = [("spindle", results)]
    for path in sorted(glob.glob(os.path.join(peers, "*.jsonl")) if peers else []):
        if not path.endswith("-key.jsonl"):
            tools.append((os.path.basename(path)[:-len(".jsonl")], load(path)))
    phase(entries, results)
    # Accuracy over the renders only, as score_devset.py counts it (copies would weigh a source twice).
    if entries:
        accuracy({p: e for p, e in entries.items() if e.get("set", "render") == "render"}, tools)
    if "--consensus" in sys.argv:
        consensus(everything, tools)
    keyed = {p: e for p, e in everything.items() if e.get("key") and e.get("set", "render") == "render"}
    if keyed:
        key_peers = [(os.path.basename(p)[:-len(".jsonl")], load(p))
                     for p in sorted(glob.glob(os.path.join(peers, "*-key.jsonl")) if peers else [])]
        keys(keyed, [("spindle", results)] + key_peers)


if __name__ == "__main__":
    main()
