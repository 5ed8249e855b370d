#!/usr/bin/env python3
"""A held-out tempo probe in the drum grammar of popular music, beside the development set and the tempo
corpus (which are scores, tracker modules and game music). Nothing of it is committed but this script.

    DEVSET/venv/bin/python scripts/tempo_patterns.py OUT      # OUT/audio/pattern/*.flac + OUT/truth.json
    find OUT/audio -type f | sort | tr '\\n' '\\0' | xargs -0 spindle inspect --json > out.jsonl
    DEVSET/venv/bin/python ../shared/devset/peers_devset.py OUT        # the peers on the same files
    python3 scripts/tempo_calibration.py OUT/truth.json out.jsonl --peers OUT/peers

Each entry is a genre's characteristic bar (rock and pop backbeats, a ballad, hip-hop, a shuffle, house,
techno, drum and bass, half-time trap, a reggae one-drop, a waltz, 16th-note funk) looped for 30 s at two
or three tempos typical of the genre, played by synthesized kick, snare, clap, hats, bass, piano and guitar
chords with seeded velocity and a few milliseconds of timing spread. The truth is the beat as the genre is
notated and annotated in tempo datasets: quarter notes, so drum and bass is 174 (not the 87 its half-time
feel invites) and trap 140 (its snare on 3 makes 70 the felt beat); Acc2 allows both. `split: "patterns"`,
`origin: "pattern"`, `group` = the genre. What these probe is the metrical level on music whose beat is
carried by a backbeat rather than by notes: slow songs with eighth-note subdivisions are where an estimator
leaning towards fast levels reads twice the tempo. Renders are bit-identical across runs (seeded)."""
import json
import sys
from pathlib import Path

import numpy as np
import soundfile as sf

RATE = 44100
SECONDS = 30

# name: (steps per bar, beats per bar, tempos, {instrument: steps})
PATTERNS = {
    "rock": (16, 4, [100, 120, 140], {"kick": [0, 8], "snare": [4, 12], "hat": list(range(0, 16, 2)), "bass": [0, 8]}),
    "pop-piano": (16, 4, [80, 95, 110], {"kick": [0, 8], "snare": [4, 12], "piano": list(range(0, 16, 2))}),
    "ballad": (16, 4, [66, 72, 78], {"kick": [0, 8], "snare": [4, 12], "hat": list(range(0, 16, 2)),
                                      "piano": list(range(0, 16, 2))}),
    "hiphop": (16, 4, [85, 90, 95], {"kick": [0, 7, 10], "snare": [4, 12], "hat": list(range(0, 16, 2)),
                                      "bass": [0, 7, 10]}),
    "shuffle": (12, 4, [90, 110], {"kick": [0, 6], "snare": [3, 9], "hat": [0, 2, 3, 5, 6, 8, 9, 11], "bass": [0, 6]}),
    "house": (16, 4, [120, 124, 128], {"kick": [0, 4, 8, 12], "clap": [4, 12], "ohat": [2, 6, 10, 14],
                                        "bass": [2, 6, 10, 14]}),
    "techno": (16, 4, [130, 135], {"kick": [0, 4, 8, 12], "hat": list(range(16)), "clap": [4, 12]}),
    "dnb": (16, 4, [170, 174], {"kick": [0, 10], "snare": [4, 12], "hat": list(range(0, 16, 2)), "bass": [0]}),
    "trap": (16, 4, [140, 150], {"kick": [0, 11], "snare": [8], "hat": list(range(16)), "bass": [0]}),
    "reggae": (16, 4, [75, 80], {"kick": [8], "snare": [8], "hat": list(range(0, 16, 2)), "guitar": [2, 6, 10, 14]}),
    "waltz": (12, 3, [90, 150], {"bass": [0], "guitar": [4, 8], "hat": [0, 4, 8]}),
    "funk": (16, 4, [100, 105], {"kick": [0, 3, 8, 10], "snare": [4, 12], "hat": list(range(16)), "bass": [0, 3, 8, 10]}),
}


def voice(name, rng, bar):
    """One hit of an instrument, 0.6 s long."""
    n = int(0.6 * RATE)
    t = np.arange(n) / RATE
    noise = rng.uniform(-1, 1, n)
    if name == "kick":
        return 0.9 * np.exp(-t * 14) * np.sin(2 * np.pi * (48 + 110 * np.exp(-t * 35)) * t)
    if name == "snare":
        return 0.5 * np.exp(-t * 22) * (noise + 0.4 * np.sin(2 * np.pi * 185 * t))
    if name == "clap":
        bursts = sum(np.where(t >= d, np.exp(-(t - d) * 60), 0) for d in (0, 0.011, 0.023))
        return 0.35 * bursts * noise
    if name == "hat":
        return 0.12 * np.exp(-t * 110) * noise
    if name == "ohat":
        return 0.10 * np.exp(-t * 25) * noise
    root = [55.0, 55.0 * 4 / 3, 55.0 * 3 / 2, 55.0 * 5 / 4][bar % 4]
    if name == "bass":
        return 0.3 * np.exp(-t * 4) * np.sin(2 * np.pi * root * t)
    chord = [root * 4, root * 5, root * 6]
    if name == "piano":
        return sum(0.1 * np.exp(-t * 3.5) * np.sin(2 * np.pi * f * t) for f in chord)
    if name == "guitar":      # a short muted chord (a skank)
        return sum(0.08 * np.exp(-t * 30) * np.sign(np.sin(2 * np.pi * f * t)) for f in chord)
    raise ValueError(name)


def render(genre, bpm, seed):
    steps, beats, _, parts = PATTERNS[genre]
    rng = np.random.default_rng(seed)
    step = 60 / bpm * beats / steps
    total = int(SECONDS * RATE)
    out = np.zeros(total + RATE)
    bar = 0
    while bar * steps * step < SECONDS:
        for name, hits in parts.items():
            for s in hits:
                start = int(((bar * steps + s) * step + rng.normal(0, 0.003)) * RATE)
                if start < 0 or start >= total:
                    continue
                x = voice(name, rng, bar) * rng.uniform(0.8, 1.0)
                out[start:start + len(x)] += x[:len(out) - start]
        bar += 1
    out = out[:total]
    out *= 0.8 / np.abs(out).max()
    return np.stack([out, out], 1)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    out = Path(sys.argv[1])
    (out / "audio" / "pattern").mkdir(parents=True, exist_ok=True)
    files = []
    for g, (genre, (_, _, tempos, _)) in enumerate(PATTERNS.items()):
        for bpm in tempos:
            path = "pattern/%s_%dbpm.flac" % (genre, bpm)
            sf.write(str(out / "audio" / path), render(genre, bpm, 1000 * g + bpm), RATE, subtype="PCM_16")
            files.append({"path": path, "bpm": float(bpm), "origin": "pattern", "group": genre, "split": "patterns",
                          "set": "render", "container": "flac", "duration_s": float(SECONDS)})
    json.dump({"description": "tempo_patterns.py: popular-music drum patterns, truth = notated beat",
               "files": files}, open(out / "truth.json", "w"), indent=1)
    print("%d renders in %s, truth in %s" % (len(files), out / "audio" / "pattern", out / "truth.json"))


if __name__ == "__main__":
    main()
