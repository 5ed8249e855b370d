#!/usr/bin/env python3
"""Fetches MusiCNN's trained weights for Spindle's tagger and converts them to Spindle's weight file.

The weights ship inside the musicnn 0.1.0 wheel on PyPI (ISC licence, Jordi Pons / MTG-UPF): a TensorFlow
checkpoint, musicnn/MSD_musicnn/.index (a table of tensor name, dtype, shape and offset) and .data-00000-of-00001
(raw float32). The wheel is checked against its pinned sha256; only the network's own variables are kept (the
checkpoint also holds Adam's slots and counters). No TensorFlow is needed.

    scripts/fetch-musicnn.py [--force] [OUT]     default OUT: $XDG_DATA_HOME/spindle/models/musicnn-msd.weights

An OUT already holding the weights is kept (--force fetches again).

The output: b"SPNWGT01", uint32 count, then per tensor: uint16 name length, name (UTF-8), uint8 rank, uint32
dims, float32 values, all little-endian.
"""
import hashlib, io, os, struct, sys, urllib.request, zipfile

URL = ("https://files.pythonhosted.org/packages/1b/6f/38229e7d99c438e11114bbfa39c8c39185458c398011d0b6d7d7c7401617/"
       "musicnn-0.1.0-py3-none-any.whl")
SHA256 = "f38a4890c648c1ddbb141c5d96d2b0a8cfcd36746002d896989f7b88beb65cfa"
MODEL = "musicnn/MSD_musicnn/"


def varint(data, pos):
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def block(table, offset, size):
    """The entries (key, value) of one table block, keys rebuilt from their shared prefixes."""
    if table[offset + size] != 0:
        raise ValueError("compressed table block: not a TensorFlow checkpoint index as expected")
    data = table[offset:offset + size]
    restarts = struct.unpack_from("<I", data, len(data) - 4)[0]
    end = len(data) - 4 - 4 * restarts
    pos, key, out = 0, b"", []
    while pos < end:
        shared, pos = varint(data, pos)
        unshared, pos = varint(data, pos)
        length, pos = varint(data, pos)
        key = key[:shared] + data[pos:pos + unshared]
        pos += unshared
        out.append((key, data[pos:pos + length]))
        pos += length
    return out


def fields(message):
    """Protobuf fields as (number, value): varints as ints, length-delimited as bytes."""
    pos, out = 0, []
    while pos < len(message):
        tag, pos = varint(message, pos)
        number, kind = tag >> 3, tag & 7
        if kind == 0:
            value, pos = varint(message, pos)
        elif kind == 2:
            length, pos = varint(message, pos)
            value, pos = message[pos:pos + length], pos + length
        elif kind == 5:
            value, pos = struct.unpack_from("<I", message, pos)[0], pos + 4
        elif kind == 1:
            value, pos = struct.unpack_from("<Q", message, pos)[0], pos + 8
        else:
            raise ValueError(f"protobuf wire type {kind}")
        out.append((number, value))
    return out


def tensors(index, data):
    """name -> (shape, float32 bytes) for every float tensor of the checkpoint."""
    footer = index[-48:]
    if struct.unpack_from("<Q", footer, 40)[0] != 0xDB4775248B80FB57:
        raise ValueError("not a table file (bad magic)")
    _, pos = varint(footer, 0)
    _, pos = varint(footer, pos)
    index_offset, pos = varint(footer, pos)
    index_size, pos = varint(footer, pos)
    out = {}
    for _, handle in block(index, index_offset, index_size):
        offset, p = varint(handle, 0)
        size, _ = varint(handle, p)
        for key, value in block(index, offset, size):
            if not key:
                continue  # the bundle's header
            entry = dict(fields(value))
            if entry.get(1, 0) != 1:  # DT_FLOAT only; the step counter is an int64
                continue
            shape = [dict(fields(d)).get(1, 0) for n, d in fields(entry.get(2, b"")) if n == 2]
            start, size = entry.get(4, 0), entry.get(5, 0)
            out[key.decode()] = (shape, data[start:start + size])
    return out


def main():
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        return
    force = "--force" in args
    args = [a for a in args if a != "--force"]
    if any(a.startswith("-") for a in args) or len(args) > 1:
        sys.exit("usage: scripts/fetch-musicnn.py [--force] [OUT]")
    out = args[0] if args else os.path.join(
        os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "spindle", "models", "musicnn-msd.weights")
    if not force and os.path.exists(out):
        with open(out, "rb") as f:
            if f.read(8) == b"SPNWGT01":
                print(f"MusiCNN's weights are already in {out} (--force fetches them again)", file=sys.stderr)
                return
    print(f"fetching {URL.rsplit('/', 1)[1]} from PyPI", file=sys.stderr)
    wheel = urllib.request.urlopen(URL, timeout=120).read()
    digest = hashlib.sha256(wheel).hexdigest()
    if digest != SHA256:
        sys.exit(f"the wheel's sha256 is {digest}, not the pinned {SHA256}: refused")
    with zipfile.ZipFile(io.BytesIO(wheel)) as z:
        index, data = z.read(MODEL + ".index"), z.read(MODEL + ".data-00000-of-00001")
    kept = {name: t for name, t in tensors(index, data).items() if "Adam" not in name and "power" not in name}
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out + ".part", "wb") as f:
        f.write(b"SPNWGT01" + struct.pack("<I", len(kept)))
        for name in sorted(kept):
            shape, raw = kept[name]
            encoded = name.encode()
            f.write(struct.pack("<H", len(encoded)) + encoded + struct.pack("<B", len(shape)))
            f.write(struct.pack(f"<{len(shape)}I", *shape) + raw)
    os.replace(out + ".part", out)
    values = sum(len(raw) // 4 for _, raw in kept.values())
    print(f"wrote {out}: {len(kept)} tensors, {values} values (MusiCNN, MSD, ISC licence, Jordi Pons / MTG-UPF)", file=sys.stderr)


if __name__ == "__main__":
    main()
