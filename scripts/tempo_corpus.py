#!/usr/bin/env python3
"""A second, independent tempo corpus beside the development set, for tuning the tempo estimator on more
music than the devset's `tune` split without touching its `check` split. Nothing of it is committed.

    python3 scripts/tempo_corpus.py OUT tracker          # modules from Debian game packages the devset does not use
    python3 scripts/tempo_corpus.py OUT midi [N]         # N music21 scores (default 60) by composers it does not use
    python3 scripts/tempo_corpus.py OUT productions      # LMMS demo projects and Hydrogen demo songs (held out)
    python3 scripts/tempo_corpus.py OUT songs            # game songs written as MIDI by their composers (held out)
    python3 scripts/tempo_corpus.py OUT soundtracks      # recorded game soundtracks, no known tempo (held out)
    python3 scripts/tempo_corpus.py OUT recordings       # recorded rock songs charted for a rhythm game (held out)
    python3 scripts/tempo_corpus.py OUT freedoom         # Freedoom's MIDI songs, rendered with another soundfont
    python3 scripts/tempo_corpus.py OUT songs2           # OpenTTD's songs again, through the TimGM6mb soundfont
    python3 scripts/tempo_corpus.py OUT truth            # OUT/truth.json for score_devset.py and peers_devset.py

It reuses the devset's own builders (../shared/devset/devset.py: module analysis with libopenmpt, truth at
4 rows per beat over a constant speed/tempo section; music21 → MIDI → FluidSynth renders with a random GM
drum pattern half the time), so it needs a built devset (DEVSET, default /tmp/devset) for its `modprobe`
helper and its venv (music21). Renders of scores are 43 s long at a log-uniform tempo of 60–190 BPM, capped
so the piece's common short note stays above ~90 ms. Tracker and score entries are `split: "tune"`: score them with

    find OUT/audio -type f | sort | tr '\\n' '\\0' | xargs -0 spindle inspect --json > out.jsonl
    python3 ../shared/devset/score_devset.py OUT/truth.json out.jsonl --peers OUT/peers

after `DEVSET/venv/bin/python ../shared/devset/peers_devset.py OUT` for the peers on the same files.
`productions` (needs `apt-get install lmms hydrogen`) renders, with their own engines, the demo projects
Debian ships with LMMS (electronic productions by its community: house, trance, reggaeton, chiptune) and
the demo songs of Hydrogen (sampled drum kits), whole. The truth is the project's tempo (quarter notes per
minute) and, since both engines start on tick 0, the beat grid itself (`first_beat_s` 0). Projects that
automate their tempo, and renders that come out silent (a drum kit not installed), are left out. Nothing
was tuned on them: their entries are `split: "productions"`, a held-out set, which score_devset.py does not
show (it knows only MIDI and tracker renders); tempo_calibration.py scores them per origin, with the peers.
`songs` is a second held-out set, of popular music with drum parts played by their composers rather than
patterns added by a script: the MIDI songs of OpenTTD's music set (pop, jazz, blues, rock), rendered with
FluidSynth, and Planet Blupi's, as the game ships them already rendered to Ogg. The truth is the song's one
MIDI tempo (songs whose tempo changes are left out); `split: "songs"`.
`soundtracks` are minute-long excerpts of recorded game soundtracks (orchestral, rock, electronic, ambient)
whose tempo nobody wrote down: they have no `bpm`, and `tempo_calibration.py --consensus` scores them
against the tempo three or more of the peers agree on, where they do (`split: "soundtracks"`).
`recordings` are the songs Debian ships for Frets on Fire (rock and metal recorded by their composers): a
minute of each, the backing and guitar stems mixed back together. The game's chart (notes.mid) is played
along with the audio, so its tempo is the truth; its beat grid is not (some charts are shifted by a fraction of
a beat against the audio), so there is no `first_beat_s`; `split: "recordings"`.

Runs are resumable: entries already in OUT/truth-PART.jsonl are skipped.
"""
import json, math, os, random, re, subprocess, sys, zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEVSET_CODE = Path(os.environ.get("DEVSET_CODE", HERE.parent.parent / "shared" / "devset"))
DEVSET = Path(os.environ.get("DEVSET", "/tmp/devset"))
sys.path.insert(0, str(DEVSET_CODE))
import devset as D  # noqa: E402

# Game packages with tracker music that the devset's TRACKER list does not use (checked against it below).
PACKAGES = """tecnoballz-data pekka-kana-2-data heroes-sound-tracks freedroid-data biniax2-data rafkill-data
bomberclone-data pachi-data circuslinux-data ri-li-data open-invaders-data tuxtype-data njam-data solarwolf
tomatoes-data ceferino-data ballz-data cuyo-data criticalmass-data flobopuyo rockdodger penguin-command bb
armagetronad dodgindiamond2 vectoroids pathogen gweled""".split()
# music21 corpus folders the devset uses (its SPLIT) or that hold no playable pieces.
SKIP_SCORES = set(D.SPLIT) | {"theoryExercises", "leadSheet", "demos", "schoenberg", "webern"}
PROGRAMS = [[0], [19], [40, 40, 41, 42], [56, 57, 58, 58], [48, 48, 48, 32], [24, 25, 32, 32],
            [73, 68, 71, 70], [52, 52, 52, 19], [16], [4, 81, 33, 38]]


def appender(out, part):
    """The entries already built (by path) and a function that appends one."""
    path = out / ("truth-%s.jsonl" % part)
    done = {e["path"]: e for e in map(json.loads, open(path))} if path.exists() else {}
    handle = open(path, "a")

    def add(entry):
        done[entry["path"]] = entry
        handle.write(json.dumps(entry) + "\n")
        handle.flush()
        print(entry, flush=True)
    return done, add


def unpacked(out, pkg):
    """The folder Debian package `pkg` is unpacked into (downloaded and unpacked once), or None when apt-get
    cannot download it."""
    debs, folder = out / "work" / "debs", out / "work" / "x" / pkg
    debs.mkdir(parents=True, exist_ok=True)
    if not list(debs.glob(pkg + "_*.deb")):
        subprocess.run(["apt-get", "download", pkg], cwd=debs, capture_output=True)
    deb = next(iter(debs.glob(pkg + "_*.deb")), None)
    if deb is None:
        return None
    if not folder.exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        D.sh(["dpkg-deb", "-x", deb, folder])
    return folder


def build_tracker(out):
    used = {t[0] for t in D.TRACKER}
    overlap = used.intersection(PACKAGES)
    if overlap:
        raise SystemExit("packages the devset already uses: %s" % ", ".join(sorted(overlap)))
    probe = DEVSET / "work" / "bin" / "modprobe"
    if not probe.exists():
        raise SystemExit("%s missing: build the devset first (make_devset.sh %s)" % (probe, DEVSET))
    done, add = appender(out, "tracker")
    for pkg in PACKAGES:
        folder = unpacked(out, pkg)
        if folder is None:
            print("no package", pkg)
            continue
        for module in sorted(p for p in folder.rglob("*") if p.is_file() and D.MOD_RE.search(p.name)):
            name = "tracker/%s__%s.flac" % (pkg, module.stem)
            if name in done:
                continue
            try:
                a = D.analyse_module(probe, module, 0)
            except Exception as ex:  # a module libopenmpt cannot read is skipped, not fatal
                print("unreadable", module, ex)
                continue
            if a is None:
                continue
            problems = [p for p in a["problems"] if not p.startswith("constant section")]
            if problems or a["section_s"] < 20:
                print("skipped", module.name, problems)
                continue
            raw = out / "work" / "module.f32"
            D.sh([probe, "pcm", module, 0, a["start"], a["frames"], raw])
            D.sh(["sox", "-R", "-D", "-t", "raw", "-e", "floating-point", "-b", "32", "-r", D.RATE, "-c", "2", raw,
                  "-b", "16", out / "audio" / name, "gain", "-n", "-3"])
            add({"path": name, "bpm": a["bpm"], "origin": "tracker", "group": pkg})


def build_midi(out, count=60):
    import music21
    rnd = random.Random(7)
    done, add = appender(out, "midi")
    candidates = []
    for p in music21.corpus.getPaths():
        rel = str(p).split("/corpus/")[1]
        if rel.split("/")[0] not in SKIP_SCORES:
            candidates.append(rel)
    rnd.shuffle(candidates)
    # Palestrina alone would be half the corpus: at most 60 of its pieces.
    palestrina = [s for s in candidates if s.startswith("palestrina")][:60]
    candidates = [s for s in candidates if not s.startswith("palestrina")] + palestrina
    rnd.shuffle(candidates)
    made, rewrite = 0, False
    mid, wav = out / "work" / "score.mid", out / "work" / "score.wav"
    for target in candidates:
        if made >= count:
            break
        name = "midi/%s.flac" % target.replace("/", "_").replace(".", "_")
        drums = rnd.random() < 0.5
        programs = rnd.choice(PROGRAMS)
        bpm = round(math.exp(rnd.uniform(math.log(60), math.log(190))))
        if name in done:
            made += 1
            if "key_source" not in done[name]:
                # Built before the key truth was kept: the same score at the same tempo gives the same notes.
                done[name].update(key_fields(D.score_to_midi(target, round(done[name]["bpm"]), drums, programs,
                                                             40, mid, D.CUT_S)))
                rewrite = True
            continue
        try:
            score = D.parse_corpus(target)
            if isinstance(score, music21.stream.Opus):
                continue
            lengths = sorted(float(n.duration.quarterLength) for n in score.flatten().notes if n.duration.quarterLength > 0)
            if not lengths:
                continue
            bpm = min(bpm, int(60 * lengths[len(lengths) // 10] / 0.09))
            if bpm < 60:
                continue
            info = D.score_to_midi(target, bpm, drums, programs, 40, mid, D.CUT_S)
        except Exception as ex:  # pieces without one x/4 metre and the like
            print("skipped", target, str(ex)[:80])
            continue
        D.sh(["fluidsynth", "-ni", "-q", "-g", "0.5", "-r", D.RATE, "-O", "float", "-T", "wav", "-F", wav, D.SF2, mid])
        D.sh(["sox", "-R", "-D", wav, "-b", "16", "-c", "2", out / "audio" / name, "trim", "0", "43", "gain", "-n", "-3"])
        add({"path": name, "bpm": info["bpm"], "origin": "midi", "group": target.split("/")[0], "drums": drums,
             "meter": info["meter"], **key_fields(info)})
        made += 1
    if rewrite:
        rewrite_entries(out, "midi", done)


def rewrite_entries(out, part, entries):
    """Rewrites OUT/truth-PART.jsonl with `entries` (by path, in their order), after fields were filled in."""
    with open(out / ("truth-%s.jsonl" % part), "w") as handle:
        for entry in entries.values():
            handle.write(json.dumps(entry) + "\n")


def key_fields(info):
    """The devset's key truth of a render (the score's key where the excerpt keeps it, else withheld with
    the reason): the key analyzer's held-out set, since no key setting was chosen on these composers."""
    return {"key": info.get("key"), "key_source": info.get("key_source")}


def project_tempo(path):
    """The LMMS project's tempo, or None when the project automates it."""
    data = open(path, "rb").read()
    if path.suffix == ".mmpz":
        data = zlib.decompress(data[4:])   # Qt's qCompress: a 4-byte length, then zlib
    xml = data.decode("utf-8", "replace")
    head = re.search(r"<head\b[^>]*?(/>|>(.*?)</head>)", xml, re.S)
    # An automated tempo is a <bpm id="N"> model inside the head that an automation pattern's <object id="N"> drives.
    model = re.search(r"<bpm\b[^>]*\bid=\"(\d+)\"", head.group(2) or "")
    if model and re.search(r"<object\b[^>]*\bid=\"%s\"" % model.group(1), xml):
        return None
    tempo = re.search(r'bpm="([0-9.]+)"', head.group(0)) or re.search(r'<bpm\b[^>]*\bvalue="([0-9.]+)"', head.group(0))
    return float(tempo.group(1))


def build_productions(out):
    import soundfile
    for tool in ("lmms", "h2cli"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            raise SystemExit("%s missing: apt-get install -y lmms hydrogen" % tool)
    done, add = appender(out, "production")
    wav = out / "work" / "production.wav"
    jobs = []
    for project in sorted(Path("/usr/share/lmms/projects").rglob("*.mmp*")):
        jobs.append(("lmms", project, project_tempo(project), ["lmms", "--allowroot", "-r", project, "-o", wav,
                                                               "-f", "wav", "-s", str(D.RATE)]))
    for song in sorted(Path("/usr/share/hydrogen").rglob("*.h2song")):
        text = song.read_text(errors="replace")
        # Tempo markers on the timeline change the tempo mid-song.
        markers = re.search(r"<BPMTimeLine>(.*?)</BPMTimeLine>", text, re.S)
        bpm = None if markers and markers.group(1).strip() else float(re.search(r"<bpm>([^<]+)</bpm>", text).group(1))
        jobs.append(("hydrogen", song, bpm, ["h2cli", "-s", song, "-o", wav]))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for origin, source, bpm, command in jobs:
        name = "production/%s__%s.flac" % (origin, re.sub(r"[^A-Za-z0-9_-]", "_", source.name.split(".")[0]))
        if name in done:
            continue
        if bpm is None:
            print("skipped (tempo changes)", source)
            continue
        wav.unlink(missing_ok=True)
        subprocess.run([str(c) for c in command], capture_output=True, env=env, timeout=900)
        if not wav.exists() or not soundfile.info(str(wav)).frames:
            print("skipped (no render)", source)
            continue
        samples, _ = soundfile.read(str(wav), dtype="float32")
        if not abs(samples).max() > 0:
            print("skipped (silent: an instrument or drum kit not installed)", source)
            continue
        D.sh(["sox", "-R", "-D", wav, "-b", "16", out / "audio" / name])
        group = source.stem.split("-")[0] if origin == "lmms" else "hydrogen"
        # Both engines start the song on tick 0, so the beats are exactly k · 60 / bpm from the start.
        add({"path": name, "bpm": bpm, "first_beat_s": 0.0, "origin": origin, "group": group, "source": str(source)})


def midi_tempo(path):
    """The MIDI file's tempo when it has exactly one, else None; and its length in seconds."""
    import mido
    song = mido.MidiFile(str(path))
    tempos = {round(mido.tempo2bpm(m.tempo), 3) for track in song.tracks for m in track if m.type == "set_tempo"}
    return (tempos.pop() if len(tempos) == 1 else None), song.length


def midi_key(path, start, seconds):
    """Key truth of `seconds` of a MIDI song from `start` (seconds), by the devset's rule: the file's one key
    signature, else music21's analyze('key') of the excerpt's notes (drums left out), kept only when
    analyze('key') of each half of the excerpt agrees with it. {"key", "key_source"} like key_fields."""
    import mido
    import music21
    t, sounding, notes, signatures = 0.0, {}, [], set()
    for message in mido.MidiFile(str(path)):      # all tracks merged, times in seconds
        t += message.time
        if message.type == "key_signature":
            signatures.add(message.key)
        elif message.type in ("note_on", "note_off") and message.channel != 9:
            held = (message.channel, message.note)
            if message.type == "note_on" and message.velocity > 0:
                sounding[held] = t
            elif held in sounding:
                notes.append((sounding.pop(held), t, message.note))
    excerpt = [(max(a, start), min(b, start + seconds), p) for a, b, p in notes if b > start and a < start + seconds]

    def analysed(chosen):
        stream = music21.stream.Stream()
        for a, b, p in chosen:
            note = music21.note.Note(p)
            note.duration = music21.duration.Duration(max(0.05, 2 * (b - a)))    # 120 quarter notes a minute
            stream.insert(2 * a, note)
        return D.key_name(stream.analyze("key"))
    if len(excerpt) < 20:
        return {"key": None, "key_source": "withheld: fewer than 20 notes"}
    middle = start + seconds / 2
    halves = [analysed([n for n in excerpt if n[0] < middle]), analysed([n for n in excerpt if n[0] >= middle])]
    if len(signatures) == 1:
        signature = signatures.pop()
        key, source = signature.rstrip("m") + (" minor" if signature.endswith("m") else " major"), "midi key signature"
    else:
        key, source = analysed(excerpt), "analyze"
    if halves != [key, key]:
        return {"key": None, "key_source": "withheld: %s key %s, analyze('key') of the halves: %s / %s"
                                           % (source, key, halves[0], halves[1])}
    return {"key": key, "key_source": source}


def build_songs(out):
    """Renders get the key truth of their excerpt too (`midi_key`), filled in for songs built before it."""
    done, add = appender(out, "song")
    openttd, midi, ogg = (unpacked(out, pkg) for pkg in ("openttd-openmsx", "planetblupi-music-midi",
                                                          "planetblupi-music-ogg"))
    if None in (openttd, midi, ogg):
        raise SystemExit("apt-get download failed for openttd-openmsx or planetblupi-music-midi/-ogg")
    wav = out / "work" / "song.wav"
    rewrite = False
    for source in sorted(openttd.rglob("*.mid")):
        name = "song/openttd__%s.flac" % source.stem
        bpm, length = midi_tempo(source)
        start = 10 if length > 75 else 0
        if name in done and "key_source" not in done[name]:
            done[name].update(midi_key(source, start, 60))
            rewrite = True
        if name in done or bpm is None or length < 40:
            continue
        D.sh(["fluidsynth", "-ni", "-q", "-g", "0.5", "-r", D.RATE, "-O", "float", "-T", "wav", "-F", wav, D.SF2, source])
        D.sh(["sox", "-R", "-D", wav, "-b", "16", "-c", "2", out / "audio" / name, "trim", start, 60, "gain", "-n", "-3"])
        add({"path": name, "bpm": bpm, "origin": "song", "group": "openttd", "source": str(source),
             **midi_key(source, start, 60)})
    for source in sorted(midi.rglob("*.mid")):
        name = "song/planetblupi__%s.flac" % source.stem
        rendered = next(iter(ogg.rglob(source.stem + ".ogg")), None)
        bpm, _ = midi_tempo(source)
        # The game's Ogg is taken to be its own render of this MIDI file, so that 30 s to 90 s of each hold the
        # same notes (not checked; where they do not, the halves of the excerpt rarely agree on a key).
        if name in done and "key_source" not in done[name]:
            done[name].update(midi_key(source, 30, 60))
            rewrite = True
        if name in done or bpm is None or rendered is None:
            continue
        D.sh(["ffmpeg", "-v", "quiet", "-y", "-ss", 30, "-t", 60, "-i", rendered, "-ar", D.RATE, "-ac", 2, wav])
        D.sh(["sox", "-R", "-D", wav, "-b", "16", out / "audio" / name])
        add({"path": name, "bpm": bpm, "origin": "song", "group": "planetblupi", "source": str(rendered),
             **midi_key(source, 30, 60)})
    if rewrite:
        rewrite_entries(out, "song", done)


def wad_songs(wad):
    """(lump name, MIDI bytes) of the music lumps of a Doom WAD: a 12-byte header (kind, lump count, directory
    offset), then 16-byte directory entries (offset, size, 8-byte name); music lumps are named D_*."""
    import struct
    data = wad.read_bytes()
    _, count, directory = struct.unpack("<4sii", data[:12])
    for i in range(count):
        offset, size, name = struct.unpack("<ii8s", data[directory + 16 * i:directory + 16 * i + 16])
        name = name.rstrip(b"\0").decode("ascii", "replace")
        if name.startswith("D_") and data[offset:offset + 4] == b"MThd":
            yield name, data[offset:offset + size]


def grid_share(path):
    """The share of the MIDI file's notes that start on its sixteenth-note or sixteenth-triplet grid (within a
    48th of a beat). A song played in without a grid, or converted from a format without one, keeps a nominal
    tempo that its notes do not follow."""
    import mido
    song = mido.MidiFile(str(path))
    ppq, ticks = song.ticks_per_beat, []
    for track in song.tracks:
        t = 0
        for message in track:
            t += message.time
            if message.type == "note_on" and message.velocity > 0:
                ticks.append(t)
    def on(t, step):
        return min(t % step, step - t % step) <= ppq / 48
    return sum(on(t, ppq / 4) or on(t, ppq / 6) for t in ticks) / max(1, len(ticks))


def build_freedoom(out):
    """Freedoom's music (rock, metal, techno, ambient and more by its many composers, written as MIDI),
    rendered with the TimGM6mb soundfont so that the songs are not all heard through FluidR3. Songs whose notes
    keep off their tempo's grid (`grid_share` under 0.85) are left out: their tempo is not the music's."""
    done, add = appender(out, "freedoom")
    dropped = False
    folder, fonts = unpacked(out, "freedoom"), unpacked(out, "timgm6mb-soundfont")
    if folder is None or fonts is None:
        raise SystemExit("apt-get download failed for freedoom or timgm6mb-soundfont")
    font = next(fonts.rglob("TimGM6mb.sf2"))
    wav, mid = out / "work" / "freedoom.wav", out / "work" / "freedoom.mid"
    seen = set()
    for wad in sorted(folder.rglob("*.wad")):
        for lump, data in wad_songs(wad):
            if data in seen:
                continue      # both games share some songs
            seen.add(data)
            name = "freedoom/%s__%s.flac" % (wad.stem, lump.lower())
            mid.write_bytes(data)
            bpm, length = midi_tempo(mid)
            if grid_share(mid) < 0.85:
                dropped = done.pop(name, None) is not None or dropped
                continue
            if name in done or bpm is None or length < 40:
                continue
            start = 10 if length > 75 else 0
            D.sh(["fluidsynth", "-ni", "-q", "-g", "0.5", "-r", D.RATE, "-O", "float", "-T", "wav", "-F", wav, font, mid])
            D.sh(["sox", "-R", "-D", wav, "-b", "16", "-c", "2", out / "audio" / name, "trim", start, 60, "gain", "-n", "-3"])
            add({"path": name, "bpm": bpm, "origin": "freedoom", "group": wad.stem, "source": "%s:%s" % (wad.name, lump),
                 **midi_key(mid, start, 60)})
    if dropped:
        rewrite_entries(out, "freedoom", done)


def build_songs_second_font(out):
    """OpenTTD's songs again, rendered with the TimGM6mb soundfont instead of FluidR3: the same written
    tempi heard through other instruments and drum sounds."""
    done, add = appender(out, "song2")
    openttd, fonts = unpacked(out, "openttd-openmsx"), unpacked(out, "timgm6mb-soundfont")
    if None in (openttd, fonts):
        raise SystemExit("apt-get download failed for openttd-openmsx or timgm6mb-soundfont")
    font = next(fonts.rglob("TimGM6mb.sf2"))
    wav = out / "work" / "song2.wav"
    for source in sorted(openttd.rglob("*.mid")):
        name = "song2/openttd__%s.flac" % source.stem
        bpm, length = midi_tempo(source)
        if name in done or bpm is None or length < 40:
            continue
        start = 10 if length > 75 else 0
        D.sh(["fluidsynth", "-ni", "-q", "-g", "0.5", "-r", D.RATE, "-O", "float", "-T", "wav", "-F", wav, font, source])
        D.sh(["sox", "-R", "-D", wav, "-b", "16", "-c", "2", out / "audio" / name, "trim", start, 60, "gain", "-n", "-3"])
        add({"path": name, "bpm": bpm, "origin": "song2", "group": "openttd", "source": str(source),
             **midi_key(source, start, 60)})


SOUNDTRACKS = "singularity-music hyperrogue-music warzone2100-music asc-music drascula-music".split()


def build_soundtracks(out):
    import soundfile
    done, add = appender(out, "soundtrack")
    wav = out / "work" / "soundtrack.wav"
    for pkg in SOUNDTRACKS:
        folder = unpacked(out, pkg)
        if folder is None:
            print("no package", pkg)
            continue
        for source in sorted(p for p in folder.rglob("*")
                             if p.suffix in (".ogg", ".opus", ".mp3") and not p.is_symlink()):
            # Album folders repeat file names (warzone2100's track1.opus): the folder is part of the name.
            stem = re.sub(r"[^A-Za-z0-9_-]", "_", "%s_%s" % (source.parent.name, source.stem))
            name = "soundtrack/%s__%s.flac" % (pkg, stem)
            if name in done:
                continue
            wav.unlink(missing_ok=True)
            subprocess.run(["ffmpeg", "-v", "quiet", "-y", "-i", str(source), "-ar", str(D.RATE), "-ac", "2", str(wav)])
            if not wav.exists() or soundfile.info(str(wav)).duration < 40:
                continue   # stingers and jingles: too short for a tempo
            duration = soundfile.info(str(wav)).duration
            start = min(30, duration - 40)
            D.sh(["sox", "-R", "-D", wav, "-b", "16", out / "audio" / name, "trim", start, 60])
            add({"path": name, "origin": "soundtrack", "group": pkg, "source": str(source)})


RECORDINGS = ["fretsonfire-songs-muldjord", "fretsonfire-songs-sectoid"]


def build_recordings(out):
    done, add = appender(out, "recording")
    for pkg in RECORDINGS:
        folder = unpacked(out, pkg)
        if folder is None:
            raise SystemExit("apt-get download failed for %s" % pkg)
        for chart in sorted(folder.rglob("notes.mid")):
            song = chart.parent
            name = "recording/%s__%s.flac" % (pkg.split("-")[-1], re.sub(r"[^A-Za-z0-9_-]", "_", song.name))
            bpm, _ = midi_tempo(chart)
            stems = sorted(str(p) for p in song.glob("*.ogg"))
            if name in done or bpm is None or not stems:
                continue
            inputs = [a for stem in stems for a in ("-i", stem)]
            D.sh(["ffmpeg", "-v", "quiet", "-y", "-ss", 30, "-t", 60, *inputs, "-filter_complex",
                  "amix=inputs=%d:normalize=0" % len(stems), "-ar", D.RATE, "-sample_fmt", "s16",
                  out / "audio" / name])
            add({"path": name, "bpm": bpm, "origin": "recording", "group": pkg, "source": str(song)})


# Each command: the name of its audio folder and truth file, the split of its entries, and its builder.
PARTS = {
    "tracker": ("tracker", "tune", build_tracker),
    "midi": ("midi", "tune", build_midi),
    "productions": ("production", "productions", build_productions),
    "songs": ("song", "songs", build_songs),
    "soundtracks": ("soundtrack", "soundtracks", build_soundtracks),
    "recordings": ("recording", "recordings", build_recordings),
    "freedoom": ("freedoom", "freedoom", build_freedoom),
    "songs2": ("song2", "songs", build_songs_second_font),
}


def write_truth(out):
    import soundfile
    files = []
    for part, split, _ in PARTS.values():
        path = out / ("truth-%s.jsonl" % part)
        if not path.exists():
            continue
        for line in open(path):
            e = json.loads(line)
            e.update(set="render", split=split, container="flac",
                     duration_s=soundfile.info(str(out / "audio" / e["path"])).duration)
            files.append(e)
    json.dump({"files": files}, open(out / "truth.json", "w"), indent=1)
    print("%d entries in %s" % (len(files), out / "truth.json"))


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in list(PARTS) + ["truth"]:
        raise SystemExit(__doc__)
    out, command = Path(sys.argv[1]), sys.argv[2]
    for part, _, _ in PARTS.values():
        (out / "audio" / part).mkdir(parents=True, exist_ok=True)
    (out / "work").mkdir(parents=True, exist_ok=True)
    if command == "truth":
        write_truth(out)
    elif command == "midi" and len(sys.argv) > 3:
        build_midi(out, int(sys.argv[3]))
    else:
        PARTS[command][2](out)


if __name__ == "__main__":
    main()
