#!/usr/bin/env python3
"""Regenerates Spindle's bundled sample library: short synthesized tracks (drum machine, bass, chords) at
known tempos in FLAC, MP3, Ogg Vorbis, Opus and M4A, with varied tags. Everything is synthesized here, so
the audio is ours to license (see LICENSE in this folder). Needs numpy and the ffmpeg command.

    python3 data/sample-library/generate.py data/sample-library [--rebuild]

Existing files are kept unless --rebuild is given (Ogg encoders pick random stream serial numbers, so a rebuild
changes bytes even when the audio is the same).
"""
import os
import subprocess
import sys
import tempfile
import wave

import numpy as np

RATE = 44100
RNG = np.random.default_rng(2026)

# file, title, artist, album artist, album, genre(s), date, track, language, country, bpm, seconds, style, codec
TRACKS = [
    ("Midnight Arcade/Neon Skyline/01 Neon Skyline.flac", "Neon Skyline", "Midnight Arcade", "Midnight Arcade",
     "Neon Skyline", "Synth-Pop", "1986", "1/2", "eng", "GB", 118, 12, "pop", "flac"),
    ("Midnight Arcade/Neon Skyline/02 Laser Rain.mp3", "Laser Rain", "Midnight Arcade", "Midnight Arcade",
     "Neon Skyline", "Synthpop;Electronic", "1986", "2/2", "eng", "GB", 112, 12, "pop", "mp3"),
    ("하늘빛/봄날/01 봄날의 약속.mp3", "봄날의 약속", "하늘빛", "하늘빛", "봄날", "K-Pop", "2019-03-14", "1/2",
     "kor", "KR", 124, 12, "pop", "mp3"),
    ("하늘빛/봄날/02 별빛 댄스.m4a", "별빛 댄스", "하늘빛", "하늘빛", "봄날", "K-Pop", "2019-03-14", "2/2",
     "", "KR", 128, 12, "dance", "m4a"),
    ("さくら通り/夜明け/01 夜明けのメロディ.opus", "夜明けのメロディ", "さくら通り", "さくら通り", "夜明け", "J-Pop",
     "2015", "1/1", "jpn", "JP", 140, 12, "pop", "opus"),
    ("Северный ветер/Река/01 Тихая река.ogg", "Тихая река", "Северный ветер", "Северный ветер", "Река",
     "Rock", "1979", "1/1", "rus", "SU", 96, 12, "rock", "ogg"),
    ("The Quiet Trio/After Hours/01 Blue Hour.flac", "Blue Hour", "The Quiet Trio", "The Quiet Trio",
     "After Hours", "Jazz", "1962", "1/2", "", "US", 88, 10, "jazz", "flac"),
    ("The Quiet Trio/After Hours/02 Sunday Mellow.ogg", "Sunday Mellow", "The Quiet Trio", "The Quiet Trio",
     "After Hours", "Jazz", "1964", "2/2", "", "US", 76, 12, "jazz", "ogg"),
    ("Kinetic Bloom/Circuits/01 Pulse Runner.opus", "Pulse Runner", "Kinetic Bloom", "Kinetic Bloom",
     "Circuits", "House", "2012", "1/2", "", "DE", 126, 12, "dance", "opus"),
    ("Kinetic Bloom/Circuits/02 Gravity Well.mp3", "Gravity Well", "Kinetic Bloom", "Various Artists",
     "Circuits", "Drum and Bass", "2014", "2/2", "", "DE", 172, 12, "dnb", "mp3"),
    ("Jo Carter/Dusty Roads/01 Dusty Roads.m4a", "Dusty Roads", "Jo Carter", "Jo Carter", "Dusty Roads",
     "Country", "1995", "1/1", "eng", "US", 100, 12, "rock", "m4a"),
    ("Los Soñadores/Fuego/01 Corazón de Fuego.mp3", "Corazón de Fuego", "Los Soñadores", "Los Soñadores",
     "Fuego", "Salsa", "2008", "1/1", "spa", "CU", 104, 12, "latin", "mp3"),
    ("Various/Quiet Moments/01 Quiet Intro.flac", "Quiet Intro", "Stillwater", "Various Artists",
     "Quiet Moments", "Ambient", "2020", "1/1", "", "", 0, 10, "ambient", "flac"),
    ("하늘빛/봄날/03 여름밤.mp3", "여름밤", "하늘빛", "하늘빛", "봄날", "K-Pop", "2019-03-14", "3/3", "kor", "KR",
     120, 12, "pop", "mp3"),
    ("Midnight Arcade/Neon Skyline/03 Chrome Hearts.ogg", "Chrome Hearts", "Midnight Arcade", "Midnight Arcade",
     "Neon Skyline", "New Wave", "1986", "3/3", "eng", "GB", 122, 12, "pop", "ogg"),
    ("The Quiet Trio/After Hours/03 Late Train.opus", "Late Train", "The Quiet Trio", "The Quiet Trio",
     "After Hours", "Jazz", "1963", "3/3", "", "US", 82, 12, "jazz", "opus"),
    ("Kinetic Bloom/Circuits/03 Night Drive.m4a", "Night Drive", "Kinetic Bloom", "Kinetic Bloom", "Circuits",
     "Techno", "2013", "3/3", "", "DE", 130, 12, "dance", "m4a"),
]

CODEC_ARGS = {
    "flac": ["-c:a", "flac", "-sample_fmt", "s16"],
    "mp3": ["-c:a", "libmp3lame", "-q:a", "6"],
    "ogg": ["-c:a", "libvorbis", "-q:a", "2"],
    "opus": ["-c:a", "libopus", "-b:a", "48k"],
    "m4a": ["-c:a", "aac", "-b:a", "80k"],
}


def env(n, attack, decay):
    t = np.arange(n) / RATE
    return np.minimum(1, t / max(attack, 1e-4)) * np.exp(-t * decay)


def kick(n):
    t = np.arange(n) / RATE
    return 0.9 * np.exp(-t * 16) * np.sin(2 * np.pi * (45 + 100 * np.exp(-t * 35)) * t)


def snare(n):
    t = np.arange(n) / RATE
    return 0.45 * np.exp(-t * 22) * (RNG.uniform(-1, 1, n) + 0.4 * np.sin(2 * np.pi * 185 * t))


def hat(n, level=0.12):
    return level * np.exp(-np.arange(n) / RATE * 80) * RNG.uniform(-1, 1, n)


def tone(freq, n, shape="saw"):
    t = np.arange(n) / RATE
    if shape == "sine":
        return np.sin(2 * np.pi * freq * t)
    out = np.zeros(n)
    for h in range(1, 8):
        out += np.sin(2 * np.pi * freq * h * t) / h * (1 if shape == "saw" else (h % 2))
    return out * 0.5


def render(style, bpm, seconds):
    n = int(seconds * RATE)
    out = np.zeros((n, 2))
    roots = [220.0, 174.6, 261.6, 196.0]
    if style == "ambient":
        lead, tail = int(2.0 * RATE), int(3.0 * RATE)
        body = n - lead - tail
        t = np.arange(body) / RATE
        pad = sum(np.sin(2 * np.pi * f * t) for f in (110, 164.8, 220, 277.2)) * 0.08
        pad *= np.minimum(1, t / 1.5) * np.minimum(1, (t[-1] - t) / 1.5)
        out[lead:lead + body, 0] = pad
        out[lead:lead + body, 1] = pad * 0.9
        return out
    beat = 60.0 / bpm
    step = beat / 2
    steps = int(seconds / step)
    for s in range(steps):
        i = int(s * step * RATE)
        b, half = divmod(s, 2)
        bar_beat = b % 4
        length = min(int(0.35 * RATE), n - i)
        if length <= 0:
            break
        if style in ("pop", "dance", "rock", "dnb"):
            if half == 0 and (bar_beat in (0, 2) or style == "dance"):
                out[i:i + length] += kick(length)[:, None]
            if half == 0 and bar_beat in (1, 3):
                out[i:i + length] += snare(length)[:, None] * np.array([0.9, 1.0])
            out[i:i + length] += hat(length, 0.08 if half else 0.05)[:, None]
        elif style == "jazz":
            if half == 0:
                out[i:i + length] += hat(length, 0.10)[:, None] * np.array([1.0, 0.7])
                if bar_beat in (1, 3):
                    out[i:i + length] += 0.25 * snare(length)[:, None]
        elif style == "latin":
            if half == 0 and bar_beat in (0, 2):
                out[i:i + length] += 0.7 * kick(length)[:, None]
            if (s % 8) in (0, 3, 6):
                click = 0.3 * np.exp(-np.arange(length) / RATE * 60) * np.sin(2 * np.pi * 2500 * np.arange(length) / RATE)
                out[i:i + length] += click[:, None]
            out[i:i + length] += hat(length, 0.05)[:, None]
        # Bass on every beat, chords every bar.
        if half == 0:
            root = roots[(b // 4) % 4]
            blen = min(int(beat * RATE * 0.9), n - i)
            out[i:i + blen] += (0.25 * tone(root / 2, blen, "saw") * env(blen, 0.005, 4))[:, None]
            if bar_beat == 0:
                clen = min(int(4 * beat * RATE), n - i)
                chord = sum(tone(root * r, clen, "sine") for r in (1, 1.26, 1.5)) * 0.07
                out[i:i + clen, 0] += chord * env(clen, 0.02, 0.6)
                out[i:i + clen, 1] += chord * env(clen, 0.02, 0.6) * 0.8
    peak = np.max(np.abs(out))
    return out / peak * 0.89 if peak > 0 else out


def main(target):
    with tempfile.TemporaryDirectory() as tmp:
        for (path, title, artist, album_artist, album, genre, date, track, lang, country, bpm, seconds,
             style, codec) in TRACKS:
            audio = render(style, bpm, seconds)   # rendered even when kept, so the generator stays in step
            out = os.path.join(target, path)
            if os.path.exists(out) and "--rebuild" not in sys.argv:
                continue
            wav = os.path.join(tmp, "x.wav")
            with wave.open(wav, "wb") as w:
                w.setnchannels(2)
                w.setsampwidth(2)
                w.setframerate(RATE)
                w.writeframes((audio * 32767).astype("<i2").tobytes())
            os.makedirs(os.path.dirname(out), exist_ok=True)
            tags = {"title": title, "artist": artist, "album_artist": album_artist, "album": album,
                    "genre": genre, "date": date, "track": track}
            if lang:
                tags["language"] = lang
            if country:
                tags["RELEASECOUNTRY"] = country
            args = ["ffmpeg", "-y", "-loglevel", "error", "-i", wav] + CODEC_ARGS[codec]
            for k, v in tags.items():
                args += ["-metadata", "%s=%s" % (k, v)]
            subprocess.run(args + [out], check=True)
            print("wrote", out)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(args[0] if args else os.path.dirname(os.path.abspath(__file__)))
