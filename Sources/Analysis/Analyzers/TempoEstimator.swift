import Foundation

public struct TempoResult: Sendable, Equatable, Codable {
    public var bpm: Double?
    /// 0..1, how far `bpm` can be trusted (`TempoConfidence`): at 0.5 or more it was right for every one of
    /// the held-out tracks of the development set, game songs, Freedoom's songs, electronic productions and
    /// programmed drum patterns, and for 14 of 16 of game songs rendered through another soundfont.
    public var confidence: Double
    /// Time of the first beat of the grid, seconds.
    public var firstBeat: Double?
    /// The runner-up metrical level (half, double, two thirds or three halves of `bpm`) when the music is
    /// about as periodic there: a caller matching tempos can accept either.
    public var alternative: Double?

    /// The confidence from which `bpm` is taken as the tempo, where a caller has to decide (genre rules,
    /// explanations, cluster names): the level `TempoConfidence` was calibrated at. Below it, a tempo is now
    /// and then another metrical level, nearly always `alternative`.
    public static let trusted = 0.5

    public init(bpm: Double?, confidence: Double, firstBeat: Double?, alternative: Double? = nil) {
        self.bpm = bpm
        self.confidence = confidence
        self.firstBeat = firstBeat
        self.alternative = alternative
    }
}

/// Global tempo of constant-tempo music. The onset envelope (86 values a second, up to 20 minutes) is kept;
/// at the end its autocorrelation, with the slowly varying level removed, gives the periodicity. The metrical
/// level is chosen on the autocorrelation of the envelope's strong part (what rises above its 70th
/// percentile): each candidate tempo is scored by a comb over its multiples (every multiple the 4 s of lags
/// hold, up to 12, weighted alike) times a log-normal prior (centre 160 BPM, σ 1.2 octaves). The hi-hats and
/// passing notes that fill a bar are most of the envelope's values but little of its strong part, so the
/// kicks, snares and chord changes that carry the beat weigh more there. A drum kit can still move the
/// choice one level slower: where the kick and the snare take turns at half the chosen tempo (`Backbeat`),
/// that is the beat. Beats are tracked by dynamic programming (`BeatTracker`) over the whole envelope at the
/// chosen period; the tempo and the first beat are the straight grid through those beats, so
/// `first_beat_s + k · 60 / bpm` lands on them to the end of the track. A read too unsure to choose between a
/// level and its half is settled by the felt-tempo prior (`SplitLevel`).
public final class TempoEstimator: Analyzer {
    private let onsets: OnsetEnvelope
    private let minBPM: Double
    private let maxBPM: Double
    private let maxLag: Int
    /// The mono mix's largest |sample| so far, followed only until it reaches `contrastGatedPeak`.
    private var mixPeak: Float = 0
    private let meanRate: Float
    /// The onset envelope as it came, up to `envelopeCapacity` values: periodicity and beats are read from it.
    private var envelope: [Float] = []
    /// The kick and snare bands' onset strength alongside it, for the backbeat.
    private var kick: [Float] = []
    private var snare: [Float] = []
    private let envelopeCapacity: Int
    /// The first ~45 s of the envelope, where the metrical-level rules look and the first beat is placed.
    private let headCapacity: Int
    private var head: ArraySlice<Float> { envelope.prefix(headCapacity) }

    public init(format: StreamFormat, minBPM: Double, maxBPM: Double) {
        onsets = OnsetEnvelope(sampleRate: format.sampleRate)
        self.minBPM = minBPM
        self.maxBPM = maxBPM
        let fps = onsets.framesPerSecond
        maxLag = Int((4 * 60 * fps / minBPM).rounded(.up)) + 2
        meanRate = Float(1 / (1.5 * fps))
        headCapacity = Int(45 * fps)
        // 20 minutes: 400 kB for each of the envelope and its two drum bands; a longer file (a DJ mix, an
        // audiobook) rarely keeps one tempo anyway.
        envelopeCapacity = Int(20 * 60 * fps)
        envelope.reserveCapacity(headCapacity)
    }

    /// The comb's multiples, the strong part's percentile, the prior's centre and spread, and the doubling
    /// threshold were chosen by grid searches on the tune split plus an independent corpus (114 tune tracks:
    /// tracker modules from Debian game packages and music21 scores by composers the development set does not
    /// use). Right counts form a ridge (centre and spread rising together). Version 9 sat on it at 230 BPM /
    /// 2.5 octaves on the whole envelope: 133 of 155. The strong part (percentile 50–80) with the prior at
    /// 145–175 BPM / 1.1–1.35 octaves gives 133–138; the pick, 70 / 160 / 1.2, has 138 and its neighbours
    /// 136–138. That prior alone reads the synthetic 80 BPM backbeat at 160: the backbeat rule below is what
    /// lets it pass every synthetic test.
    static let combMultiples = 12
    static let strongPercentile = 70
    /// The backbeat score (`Backbeat`) at which half the chosen tempo is taken instead. The largest of
    /// 0.1–0.25 that reads every synthetic drum pattern right (the 80 BPM one scores 0.20 at its beat); with
    /// it the tune tracks give 137 of 155 (138 without the rule). Held out, version 9 → 10: the check split
    /// 34 → 37 of 41, octave errors allowed 39 → 41; songs 30 → 30 of 37, recordings 7 → 7 of 8, drum
    /// patterns 18 → 24 of 29, and 70 soundtrack tracks where three or more other tools agree 49 → 49.
    static let backbeatEvidence = 0.15
    /// The share of the chosen period's periodicity (whole envelope) that its half period must reach for the
    /// chosen level to count as subdivided, so that a backbeat at half of it is a half-time feel and not the
    /// beat. Where the backbeat rule is right (a slow backbeat read at its eighths: the synthetic 72 and 80 BPM
    /// backbeats, ballads and piano pop of the drum-pattern probe), the half period holds nothing: −0.19 to
    /// 0.02. Half-time grooves measure 0.78–1.45. 0.5 sits in that gap; on the development set no result
    /// changes anywhere from 0.3 to 0.9. Version 11 → 12: the drum-pattern probe 83 → 90 % (trap at 140 and 150
    /// had read 70 and 75 at confidence 0.8), right among tracks at 0.5 or more 88 → 96 %.
    static let halfTimeSubdivision = 0.5
    static let priorCenterBPM = 160.0
    static let priorOctaves = 1.2
    static let doubleEvidence = 0.45
    static let ternaryRatio = 1.0
    /// A level whose comb score is at least this share of the chosen level's is reported as the
    /// alternative. On the development set's tune split, 0.9 reports one for 25 of 41 renders and puts the
    /// true tempo in bpm or the alternative for 39 of 41 (bpm alone: 37).
    static let alternativeShare = 0.9
    /// Onset strength (the envelope's 99th percentile) below which a track holds no onsets a listener would
    /// hear as beats, so it has no tempo: 2.3 is the flux of a 1 dB rise in ten bands (about an octave of
    /// partials). A steady tone's envelope is only the ripple of its phase against the frames (0.03–1.7
    /// for sines at 100 Hz–1 kHz, a chord, a clipped sine, a vibrato), and that ripple is as periodic as a
    /// metronome: without this a 96 kHz sine read as 75 BPM at confidence 0.96. The weakest onsets of the
    /// 392 renders and recordings of the development set and the tempo corpus are 16. The envelope's
    /// compression is relative to full scale, so quiet music's onsets are weaker in it (plucked notes at
    /// 100 BPM peaking at −20, −40, −45 and −50 dBFS reach 26, 5.7, 3.1 and 1.4): the gate holds only for
    /// tracks whose mix peaks at `gatedPeak` or above, and a quieter track is read as before.
    static let audibleOnsets: Float = 2.3
    /// −40 dBFS.
    static let gatedPeak: Float = 0.01
    /// Lag-1 autocorrelation of the envelope (over its lag 0) below which the envelope alternates frame to
    /// frame and there is no tempo. Onsets rise over several of the overlapping frames, so music keeps it
    /// above −0.11 (the lowest of 392 renders and recordings of the development set and the tempo corpus
    /// measured; most lie at 0.3–0.6; none of their 415 files falls under the threshold); a steady sound
    /// whose partials beat against the frame rate swings the envelope at up to half that rate: mains hum
    /// −0.58, a drone organ −0.41, a triad −0.74. Level does not enter, so this holds where the
    /// onset-strength gate cannot (hum loud enough to pass it had read as 166 BPM at confidence 0.88). Music
    /// can sound such a partial under its beat (a Freedoom song through the TimGM6mb soundfont measured −0.36
    /// and had no tempo, where every peer read its 80 BPM), so where the strongest stretches of onsets stand
    /// out as music's do (`musicalContrast`), the alternation does not count.
    static let alternatingEnvelope = -0.3
    /// The onset contrast (see `contrastSeconds`) of music: the lowest of the development set's 133 files is
    /// 3.8, the steady sounds reach 2.8, that Freedoom song 11.2.
    static let musicalContrast: Float = 3.8
    /// A lossy codec defeats that test: its quantization noise, which changes from one codec frame to the
    /// next, fills the envelope with small rises that do not alternate, while the beating of the partials stays as
    /// periodic as before. A chord in Opus read as 95 BPM at confidence 0.80, a 55 Hz drone in AAC as 110 BPM
    /// at 0.63, and 18 of 48 steady sounds (chords, a drone, an organ, vibrato, detuned pads, white noise;
    /// Vorbis, Opus, AAC, MP3, WAV) had a tempo, 5 of them at 0.5 or more. What neither the beating nor the noise
    /// has is stretches of onsets that stand out: averaged over `contrastSeconds`, the envelope's strongest
    /// stretches rise above its median by 0.9 to 2.8 for those of the 48 that pass the tests above, and by 3.8
    /// to 33 for the 133 files of the development set (renders, transcodes, stretched and padded copies; the
    /// lowest, 3.8, is a track read wrong either way, and 29 of the 31 below 10 are right). Below
    /// `audibleOnsets` there is no tempo: 1 of the 48 keeps one, at confidence 0.04, and not one result changes
    /// of the development set or of 209 other files (74 tracker modules, 37 game songs, 90 excerpts of recorded
    /// game soundtracks, ambient ones among them, and 8 recorded rock songs). The cost is at the edge of hearing:
    /// a kick at 120 BPM under a steady chord keeps its tempo down to 30 dB below the chord (WAV, Vorbis, AAC;
    /// confidence 0.66–0.84 there) and has none at 36 dB below, where version 12 still read it (0.75 in WAV) and,
    /// at 42 and 48 dB below, mostly read the chord's beating instead (95–112 BPM, up to 0.56). Like the onset
    /// strength, the contrast falls with the level (a chord pattern peaking at −10, −20, −30 and −40 dBFS: 13.8,
    /// 8.1, 4.3, 1.8), so it counts only for tracks whose mix peaks at `contrastGatedPeak` or above: nearly
    /// every record does, and the steady sounds above peak at −9 to −3 dBFS.
    static let contrastSeconds = 0.2
    /// −20 dBFS.
    static let contrastGatedPeak: Float = 0.1

    public func consume(_ block: AudioBlock) {
        onsets.consume(block.mono) { strength in self.add(strength) }
        if mixPeak < Self.contrastGatedPeak { mixPeak = max(mixPeak, VectorOps.maxAbs(block.mono.baseAddress!, block.mono.count)) }
    }

    private func add(_ strength: OnsetEnvelope.Strength) {
        if envelope.count < envelopeCapacity {
            envelope.append(strength.all)
            kick.append(strength.kick)
            snare.append(strength.snare)
        }
    }

    /// What of the envelope rises above its `strongPercentile`, the rest zero.
    private func strongPart() -> [Float] {
        let floor = percentile(Self.strongPercentile)
        return envelope.map { max(0, $0 - floor) }
    }

    /// The envelope's 99th percentile: what the strongest onsets reach, unmoved by a lone click.
    private func strongestOnsets() -> Float { percentile(99) }

    /// How far the envelope's strongest stretches stand above its typical one: the 99th percentile less the
    /// median of the envelope averaged over `contrastSeconds` (Hann-weighted).
    private func onsetContrast() -> Float {
        let width = max(1, Int((Self.contrastSeconds * onsets.framesPerSecond).rounded()) | 1)
        guard envelope.count > width else { return 0 }
        let weights = (0..<width).map { Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0 + 1) / Double(width + 1))) }
        let total = weights.reduce(0, +)
        var smoothed = [Float](repeating: 0, count: envelope.count - width + 1)
        envelope.withUnsafeBufferPointer { e in
            for i in smoothed.indices {
                var s: Float = 0
                for k in 0..<width { s += weights[k] * e[i + k] }
                smoothed[i] = s / total
            }
        }
        return percentile(99, of: smoothed) - percentile(50, of: smoothed)
    }

    private func percentile(_ p: Int) -> Float { percentile(p, of: envelope) }

    private func percentile(_ p: Int, of values: [Float]) -> Float {
        var values = values
        let k = values.count * p / 100
        return values.withUnsafeMutableBufferPointer { v in
            QuickSelect.select(v, 0..<v.count, k: k)
            return v[k]
        }
    }

    private static func value(_ acf: [Double], at lag: Double) -> Double {
        let i = Int(lag)
        guard i + 1 < acf.count, i >= 0 else { return 0 }
        let f = lag - Double(i)
        return acf[i] * (1 - f) + acf[i + 1] * f
    }

    public func finish() -> TempoResult {
        let fps = onsets.framesPerSecond
        guard envelope.count > Int(4 * fps) else { return TempoResult(bpm: nil, confidence: 0, firstBeat: nil) }
        let acf = Autocorrelation.of(Autocorrelation.detrended(envelope, rate: meanRate), maxLag: maxLag)
        let contrast = mixPeak < Self.contrastGatedPeak ? nil : onsetContrast()
        guard acf[0] > 0, acf[1] >= Self.alternatingEnvelope * acf[0] || (contrast ?? 0) >= Self.musicalContrast,
              mixPeak < Self.gatedPeak || strongestOnsets() >= Self.audibleOnsets,
              contrast.map({ $0 >= Self.audibleOnsets }) ?? true else {
            return TempoResult(bpm: nil, confidence: 0, firstBeat: nil)
        }
        let strong = Autocorrelation.of(Autocorrelation.detrended(strongPart(), rate: meanRate), maxLag: maxLag)
        func comb(_ acf: [Double], _ bpm: Double) -> Double {
            let p = self.period(bpm: bpm)
            var s = 0.0, w = 0.0
            // Equal weights: the far multiples are what tell a period from its double or its two-thirds.
            for k in 1...Self.combMultiples where Double(k) * p < Double(maxLag) {
                s += Self.value(acf, at: Double(k) * p)
                w += 1
            }
            return w > 0 ? s / w : 0
        }
        func prior(_ bpm: Double) -> Double {
            let octaves = log2(bpm / Self.priorCenterBPM)
            return exp(-0.5 * octaves * octaves / (Self.priorOctaves * Self.priorOctaves))
        }
        var bestBPM = minBPM, bestScore = -Double.infinity
        var bpm = minBPM
        while bpm <= maxBPM {
            let s = max(0, comb(strong, bpm)) * prior(bpm)
            if s > bestScore { bestScore = s; bestBPM = bpm }
            bpm += 0.05
        }
        // Metrical level: the comb can still settle a level below the beat, so move to a faster level when
        // the music says so. Double when the half period is about as periodic AND the off-beats are about as
        // strong as the beats (hi-hats on eighths make the first true but not the second); ×1.5 (a ternary
        // metre's beat) when the two-thirds period is even more periodic than the chosen one.
        let period = self.period(bpm: bestBPM)
        let chosen = max(Self.value(strong, at: period), .leastNonzeroMagnitude)
        let halfRatio = Self.value(strong, at: period / 2) / chosen
        if bestBPM * 2 <= maxBPM + 0.5, halfRatio > 0, halfRatio * offBeatRatio(period: period) >= Self.doubleEvidence {
            bestBPM *= 2
        } else if bestBPM * 1.5 <= maxBPM + 0.5, Self.value(strong, at: period * 2 / 3) > Self.ternaryRatio * chosen {
            bestBPM *= 1.5
        }
        bestBPM = backbeatLevel(bestBPM, acf: acf)
        let read = self.read(at: bestBPM, acf: acf) { comb(acf, $0) }
        guard let slower = read.alternative, SplitLevel.prefersSlower(read) else { return read }
        // The level was the prior's call and the faster one lost the vote: the slower level is read on its own
        // beats, with the faster as its alternative, and it is no surer than the read it replaced.
        let swapped = self.read(at: slower, acf: acf) { comb(acf, $0) }
        return TempoResult(bpm: swapped.bpm, confidence: min(read.confidence, swapped.confidence),
                           firstBeat: swapped.firstBeat, alternative: read.bpm)
    }

    /// The tempo, grid, alternative and confidence of the level `bpm`: refined on the whole envelope's
    /// autocorrelation peak (parabolic interpolation around the period), then on the line through the tracked
    /// beats when they keep to one.
    private func read(at bpm: Double, acf: [Double], comb: (Double) -> Double) -> TempoResult {
        let acfPeriod = Self.refine(period: period(bpm: bpm), acf)
        let beats = BeatTracker.track(envelope, period: acfPeriod, settleFrames: headCapacity)
        let refined = beats?.gridPeriod ?? acfPeriod
        let finalBPM = self.bpm(period: refined)
        // Periodicity alone trusts music that is periodic at some level but whose beats the tracker cannot
        // hold to one grid (a level between two, a dotted pulse): the confidence weighs both.
        let periodicity = max(0, min(1, Self.value(acf, at: acfPeriod) / acf[0]))
        let runnerUp = alternative(to: finalBPM, acf: acf, comb: comb)
        let confidence = TempoConfidence.of(periodicity: periodicity, onGrid: beats?.onGrid ?? 0,
                                            splitLevels: runnerUp != nil, bpm: finalBPM)
        return TempoResult(bpm: finalBPM, confidence: confidence, firstBeat: firstBeat(period: refined, beats: beats),
                           alternative: runnerUp)
    }

    /// Half `bpm` when the kick and snare take turns at its period (`backbeatEvidence`) more than at `bpm`'s:
    /// the comb and the prior can settle on the eighths of a slow backbeat whose hi-hats fill every eighth.
    /// Only ever slower: bass notes on the beat with melody notes between them alternate like a kick and
    /// a snare at twice the tempo, so a backbeat read at a faster level doubled a plain chorale texture.
    /// Not when `bpm` is itself evenly subdivided (`halfTimeSubdivision`): that is a half-time groove (trap,
    /// dubstep, a half-time rock chorus: the snare on 3, hats on every eighth or sixteenth), whose beat is
    /// `bpm`, as those genres are notated and as the other tools read them.
    private func backbeatLevel(_ bpm: Double, acf: [Double]) -> Double {
        let half = bpm / 2
        let p = period(bpm: bpm)
        guard Self.value(acf, at: p / 2) < Self.halfTimeSubdivision * Self.value(acf, at: p), half >= minBPM,
              let bands = Backbeat.Bands(kick: kick, snare: snare, framesPerSecond: onsets.framesPerSecond) else { return bpm }
        let slower = bands.score(period: period(bpm: half))
        return slower >= Self.backbeatEvidence && slower > bands.score(period: p) ? half : bpm
    }

    /// The other metrical level the evidence nearly equally supports, refined on its own peak; nil when
    /// the chosen level stands clear.
    private func alternative(to bpm: Double, acf: [Double], comb: (Double) -> Double) -> Double? {
        let chosen = comb(bpm)
        guard chosen > 0 else { return nil }
        let levels = [0.5, 2.0 / 3, 1.5, 2.0].map { bpm * $0 }.filter { $0 >= minBPM && $0 <= maxBPM }
        guard let best = levels.map({ (bpm: $0, score: comb($0)) }).max(by: { $0.score < $1.score }),
              best.score >= Self.alternativeShare * chosen else { return nil }
        return self.bpm(period: Self.refine(period: period(bpm: best.bpm), acf))
    }

    /// The envelope period (in frames) of a tempo.
    private func period(bpm: Double) -> Double { 60 * onsets.framesPerSecond / bpm }

    /// The tempo of an envelope period (in frames), kept inside the configured range.
    private func bpm(period: Double) -> Double {
        min(maxBPM, max(minBPM, 60 * onsets.framesPerSecond / period))
    }

    private static func refine(period: Double, _ acf: [Double]) -> Double {
        let i = Int(period.rounded())
        guard i >= 2, i + 1 < acf.count else { return period }
        var peak = i
        for j in max(1, i - 1)...min(acf.count - 2, i + 1) where acf[j] > acf[peak] { peak = j }
        let (a, b, c) = (acf[peak - 1], acf[peak], acf[peak + 1])
        let d = a - 2 * b + c
        let offset = d < 0 ? 0.5 * (a - c) / d : 0
        var refined = Double(peak) + max(-0.5, min(0.5, offset))
        // Use the multiples too: the k-th peak pins the period k times more finely.
        var weighted = refined, weight = 1.0
        for k in 2...4 {
            let target = refined * Double(k)
            let j = Int(target.rounded())
            guard j >= 2, j + 1 < acf.count else { break }
            var p = j
            for q in (j - 1)...(j + 1) where acf[q] > acf[p] { p = q }
            let (a2, b2, c2) = (acf[p - 1], acf[p], acf[p + 1])
            let d2 = a2 - 2 * b2 + c2
            guard d2 < 0, b2 > 0.3 * acf[peak] else { continue }
            let estimate = (Double(p) + max(-0.5, min(0.5, 0.5 * (a2 - c2) / d2))) / Double(k)
            weighted += estimate * Double(k)
            weight += Double(k)
        }
        refined = weighted / weight
        return refined
    }

    /// The onset envelope's head folded at `period`: the strongest phase, its mean strength, and the
    /// mean strength half a period later.
    private func beatPhase(period: Double) -> (phase: Double, onBeat: Float, offBeat: Float) {
        let head = self.head
        func value(_ t: Double) -> Float {
            let i = Int(t)
            guard i + 1 < head.count else { return 0 }
            let f = Float(t - Double(i))
            return head[i] * (1 - f) + head[i + 1] * f
        }
        func mean(from phase: Double) -> Float {
            var s: Float = 0, n = 0
            var t = phase
            while t < Double(head.count - 1) { s += value(t); n += 1; t += period }
            return n > 0 ? s / Float(n) : 0
        }
        var best = (phase: 0.0, onBeat: Float(-1))
        var phase = 0.0
        while phase < period {
            let m = mean(from: phase)
            if m > best.onBeat { best = (phase, m) }
            phase += 0.25
        }
        return (best.phase, best.onBeat, mean(from: best.phase + period / 2))
    }

    private func offBeatRatio(period: Double) -> Double {
        guard head.count > Int(period * 4) else { return 0 }
        let b = beatPhase(period: period)
        return b.onBeat > 0 ? Double(b.offBeat / b.onBeat) : 0
    }

    private func firstBeat(period: Double, beats: BeatTracker.Beats?) -> Double? {
        let head = self.head
        guard head.count > Int(period * 2), let maxOnset = head.max(), maxOnset > 0 else { return nil }
        let phase = beats?.gridPhase ?? beatPhase(period: period).phase
        let startsAtOnce = onsets.firstFrameLevel > 0.25 * maxOnset
        let firstOnset = startsAtOnce ? 0 : Double(head.firstIndex(where: { $0 > 0.25 * maxOnset }) ?? 0)
        var beat = phase
        while beat - period >= firstOnset - period / 2 { beat -= period }
        while beat < firstOnset - period / 2 { beat += period }
        return max(0, beat / onsets.framesPerSecond + onsets.latency)
    }
}

extension TempoEstimator {
    public static let entry = AnalyzerEntry(
        name: "tempo", version: 15, needsMono: true,
        outputs: ["bpm", "bpm_confidence", "first_beat_s", "bpm_alternative"],
        make: { format, options in TempoEstimator(format: format, minBPM: options.minBPM, maxBPM: options.maxBPM) },
        values: { r in
            ["bpm": .number(r.bpm), "bpm_confidence": .number(r.confidence), "first_beat_s": .number(r.firstBeat),
             "bpm_alternative": .number(r.alternative)]
        })
}

extension TrackAnalysis {
    /// The tempo estimate, when the tempo analyzer ran.
    public var tempo: TempoResult? {
        guard versions[TempoEstimator.entry.name] != nil else { return nil }
        return TempoResult(bpm: values["bpm"]?.double, confidence: values["bpm_confidence"]?.double ?? 0,
                           firstBeat: values["first_beat_s"]?.double, alternative: values["bpm_alternative"]?.double)
    }
}
