#!/usr/bin/env python3
"""Spindle's loudness side by side with ffmpeg's ebur128 filter, file by file:

    find DIR -type f | sort | tr '\\n' '\\0' | xargs -0 spindle inspect --json > out.jsonl
    python3 scripts/loudness_peers.py out.jsonl [--reference]

prints, per file and as a summary, the difference in integrated loudness, loudness range and true peak
(Spindle − ffmpeg). ffmpeg prints one decimal, so differences up to 0.05 are rounding. Expect:
  - integrated loudness to agree within that rounding;
  - loudness range to agree within a few hundredths (both take a 3 s short-term block every 0.1 s, as
    EBU Tech 3342 asks since 2016; libebur128, and so rsgain, takes one every second);
  - true peak to differ on clipped masters, where the value depends on the interpolator: Spindle uses
    BS.1770's 4× polyphase filter (12 taps per phase), ffmpeg resamples to 192 kHz.
With --reference (needs scipy and soundfile), the true peak is also measured with a ×16 Kaiser-windowed
sinc over the whole file, to tell which of the two is closer (a few seconds per minute of audio)."""
import json
import re
import subprocess
import sys


def ffmpeg_loudness(path):
    out = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-i", path, "-af", "ebur128=peak=true",
                          "-f", "null", "-"], capture_output=True, text=True).stderr
    summary = out[out.rfind("Summary:"):]

    def value(label):
        m = re.search(r"^\s+%s:\s+(-?[0-9.]+|-inf)" % label, summary, re.M)
        return float(m.group(1)) if m and m.group(1) != "-inf" else None
    return value("I"), value("LRA"), value("Peak")


def reference_true_peak(path):
    """dBTP with ×16 oversampling, in 10 s pieces with 2,000 samples of context each side."""
    import numpy as np
    import scipy.signal as ss
    import soundfile as sf
    audio, rate = sf.read(path, dtype="float64", always_2d=True)
    peak = 0.0
    for c in range(audio.shape[1]):
        x = audio[:, c]
        for start in range(0, len(x), 10 * rate):
            lo, hi = max(0, start - 2000), min(len(x), start + 10 * rate + 2000)
            up = ss.resample_poly(x[lo:hi], 16, 1, window=("kaiser", 12.0))
            a = (start - lo) * 16
            peak = max(peak, float(np.abs(up[a:a + min(10 * rate, len(x) - start) * 16]).max()))
    return 20 * np.log10(peak) if peak > 0 else None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        raise SystemExit(__doc__)
    reference = "--reference" in sys.argv
    rows = []
    for line in open(args[0]):
        r = json.loads(line)
        if r.get("status") != "ok" or r.get("lufs_integrated") is None:
            continue
        i, lra, tp = ffmpeg_loudness(r["path"])
        if i is None or tp is None:
            # ffmpeg's filter refuses some layouts it cannot name (an AAC stream of "unknown" 4 channels).
            print("%-50s ffmpeg measured nothing" % r["path"].split("/")[-1][:50])
            continue
        ref = reference_true_peak(r["path"]) if reference else None
        rows.append((r, i, lra, tp, ref))
        against = ", ×16 reference %.2f" % ref if ref is not None else ""
        print("%-50s I %+.2f  LRA %+.2f  TP %+.2f (Spindle %.2f, ffmpeg %s%s)" % (
            r["path"].split("/")[-1][:50], r["lufs_integrated"] - i, (r["loudness_range_lu"] or 0) - (lra or 0),
            r["true_peak_dbtp"] - tp, r["true_peak_dbtp"], tp, against))
    if not rows:
        raise SystemExit("no analysed files in %s" % args[0])
    for name, index, key in (("integrated", 1, "lufs_integrated"), ("range", 2, "loudness_range_lu"),
                             ("true peak", 3, "true_peak_dbtp")):
        diffs = [abs((row[0][key] or 0) - row[index]) for row in rows if row[index] is not None]
        print("%-10s over %d files: largest |Spindle − ffmpeg| %.2f, mean %.3f" % (
            name, len(diffs), max(diffs), sum(diffs) / len(diffs)))
    if reference:
        pairs = [(abs(r["true_peak_dbtp"] - ref), abs(tp - ref)) for r, _, _, tp, ref in rows if ref is not None]
        print("true peak against the ×16 reference: Spindle within %.2f dB, ffmpeg within %.2f dB" % (
            max(p[0] for p in pairs), max(p[1] for p in pairs)))


if __name__ == "__main__":
    main()
