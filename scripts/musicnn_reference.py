#!/usr/bin/env python3
"""An independent NumPy rendering of MusiCNN (MSD) over Spindle's weight file, to check the Swift tagger against:
written from the published architecture (Pons & Serra 2019; musicnn's models.py: 'timbral' convolutions of 7x38
and 7x67 mel bins, 'temporal' ones of 128, 64 and 32 frames, three 7-frame mid-end convolutions with residuals,
max and mean pooling over time, a dense layer of 200 and 50 sigmoid outputs; batch normalisation after each layer,
epsilon 0.001), not from Spindle's code.

    scripts/musicnn_reference.py WEIGHTS PATCHES.f32 [N]    # N patches of 187x96 log-mel values, float32
prints one line per patch: 50 tag probabilities, then the 200 values of the embedding.
"""
import struct, sys
import numpy as np


def load(path):
    d = open(path, "rb").read()
    assert d[:8] == b"SPNWGT01"
    count, pos, out = struct.unpack_from("<I", d, 8)[0], 12, {}
    for _ in range(count):
        n = struct.unpack_from("<H", d, pos)[0]; pos += 2
        name = d[pos:pos + n].decode(); pos += n
        rank = d[pos]; pos += 1
        shape = struct.unpack_from(f"<{rank}I", d, pos); pos += 4 * rank
        size = int(np.prod(shape)) if rank else 1
        out[name] = np.frombuffer(d, dtype="<f4", count=size, offset=pos).reshape(shape).astype(np.float64); pos += 4 * size
    return out


def bn(w, i, x):
    p = "batch_normalization" + ("" if i == 0 else f"_{i}") + "/"
    return (x - w[p + "moving_mean"]) / np.sqrt(w[p + "moving_variance"] + 0.001) * w[p + "gamma"] + w[p + "beta"]


def conv(w, i, x):
    """'valid' 2-D convolution of x [time, freq] (one channel) with conv2d_i's kernel [kt, kf, 1, c]: [t', f', c]."""
    k, b = w[f"conv2d_{i}/kernel" if i else "conv2d/kernel"][:, :, 0, :], w[f"conv2d_{i}/bias" if i else "conv2d/bias"]
    kt, kf, c = k.shape
    T, F = x.shape[0] - kt + 1, x.shape[1] - kf + 1
    out = np.zeros((T, F, c))
    for dt in range(kt):
        for df in range(kf):
            out += x[dt:dt + T, df:df + F, None] * k[dt, df][None, None, :]
    return np.maximum(out + b, 0)


def net(w, patch):
    x = bn(w, 0, patch)                                  # [187, 96]
    padded = np.pad(x, ((3, 3), (0, 0)))
    front = [bn(w, 1, conv(w, 0, padded)).max(axis=1), bn(w, 2, conv(w, 1, padded)).max(axis=1)]
    for i, length in zip((2, 3, 4), (128, 64, 32)):
        same = np.pad(x, (((length - 1) // 2, length // 2), (0, 0)))   # TensorFlow's 'same': the extra frame after
        front.append(bn(w, 3 + i - 2, conv(w, i, same)).max(axis=1))
    f = np.concatenate(front, axis=1)                   # [187, 561]
    c1 = bn(w, 6, conv(w, 5, np.pad(f, ((3, 3), (0, 0))))[:, 0, :])
    c2 = bn(w, 7, conv(w, 6, np.pad(c1, ((3, 3), (0, 0))))[:, 0, :]) + c1
    c3 = bn(w, 8, conv(w, 7, np.pad(c2, ((3, 3), (0, 0))))[:, 0, :]) + c2
    mid = np.concatenate([f, c1, c2, c3], axis=1)       # [187, 753]
    pooled = np.stack([mid.max(axis=0), mid.mean(axis=0)], axis=1).reshape(-1)   # max, mean of each channel in turn
    dense = bn(w, 10, np.maximum(bn(w, 9, pooled) @ w["dense/kernel"] + w["dense/bias"], 0))
    logits = dense @ w["dense_1/kernel"] + w["dense_1/bias"]
    return 1 / (1 + np.exp(-logits)), dense


if __name__ == "__main__":
    w = load(sys.argv[1])
    patches = np.fromfile(sys.argv[2], dtype="<f4").reshape(-1, 187, 96).astype(np.float64)
    for patch in patches[:int(sys.argv[3]) if len(sys.argv) > 3 else None]:
        tags, embedding = net(w, patch)
        print(" ".join(f"{v:.7g}" for v in np.concatenate([tags, embedding])))
