#!/usr/bin/env python3
"""One more peer beside the ones ../shared/devset/peers_devset.py runs: Mark Hills' `bpm` (Debian
bpm-tools, the engine of `bpm-tag`, which DJs use to fill the BPM tag), with its own defaults (84–146 BPM),
as a user runs it. For a development set or a tempo corpus DIR (its truth.json and audio/):

    apt-get install bpm-tools ffmpeg
    python3 scripts/peer_bpm_tools.py DIR

writes DIR/peers/bpm-tools.jsonl in the peers' format ({"path", "bpm", "status", "seconds"}), which
score_devset.py --peers and tempo_calibration.py --peers then show side by side (with --consensus it is one
more voter, whose range cannot reach a tempo above 146). ffmpeg decodes every container the sets use to
what `bpm` reads: 44.1 kHz mono 32-bit float on stdin."""
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def estimate(path):
    start = time.monotonic()
    decode = subprocess.Popen(["ffmpeg", "-v", "quiet", "-i", str(path), "-f", "f32le", "-ac", "1", "-ar", "44100", "-"],
                              stdout=subprocess.PIPE)
    result = subprocess.run(["bpm"], stdin=decode.stdout, capture_output=True, text=True)
    decode.stdout.close()
    decode.wait()
    try:
        return float(result.stdout.strip()), "ok", time.monotonic() - start
    except ValueError:
        return None, "failed: %s" % (result.stderr.strip() or "no output"), time.monotonic() - start


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    for tool in ("bpm", "ffmpeg"):
        if shutil.which(tool) is None:
            raise SystemExit("%s not found: apt-get install bpm-tools ffmpeg" % tool)
    root = Path(sys.argv[1])
    truth = json.load(open(root / "truth.json"))
    entries = truth["files"] if isinstance(truth, dict) else truth
    paths = [e["path"] for e in entries]
    (root / "peers").mkdir(exist_ok=True)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda p: estimate(root / "audio" / p), paths))
    with open(root / "peers" / "bpm-tools.jsonl", "w") as out:
        for path, (bpm, status, seconds) in zip(paths, results):
            out.write(json.dumps({"path": path, "bpm": bpm, "status": status, "seconds": round(seconds, 4)}) + "\n")
    print("%d files, %d with a tempo: %s" % (len(paths), sum(r[0] is not None for r in results),
                                              root / "peers" / "bpm-tools.jsonl"))


if __name__ == "__main__":
    main()
