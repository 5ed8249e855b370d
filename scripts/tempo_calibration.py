#!/usr/bin/env python3
"""How well `bpm_confidence` predicts a right tempo, per split, on the development set or the tempo corpus:

    find DEVSET/audio -type f | sort | tr '\\n' '\\0' | xargs -0 spindle inspect --json > out.jsonl
    python3 scripts/tempo_calibration.py DEVSET/truth.json out.jsonl

For each split: the share of tracks at confidence 0.5 or more and how many of them are right (within 4 %),
the right share per confidence decile, and how often the truth is `bpm` or `bpm_alternative`. Results are
matched to truth entries by their path relative to the audio folder (the last two path components)."""
import json
import sys


def right(estimate, truth):
    return estimate is not None and truth > 0 and abs(estimate / truth - 1) <= 0.04


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    truth = json.load(open(sys.argv[1]))
    entries = {e["path"]: e for e in (truth["files"] if isinstance(truth, dict) else truth) if "bpm" in e}
    results = {}
    for line in open(sys.argv[2]):
        line = line.strip()
        if line:
            r = json.loads(line)
            results["/".join(r["path"].split("/")[-2:])] = r
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


if __name__ == "__main__":
    main()
