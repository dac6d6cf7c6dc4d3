#!/usr/bin/env python3
"""debugbomb.py MIB IN OUT [IN OUT...]: copies each 64-bit little-endian ELF IN to OUT with
its .debug_str replaced by a zlib SHF_COMPRESSED section whose header says,
and whose stream really inflates to, MIB MiB of zeros (about 1 MiB on disk
per GiB).  The symbol table is kept, so the program's functions stay
nameable.  Used to check that a reader of debug data bounds what it inflates."""
import struct
import sys
import zlib

SHF_COMPRESSED = 0x800
ELFCOMPRESS_ZLIB = 1


def bomb(src, dst, mib, blob):
    data = bytearray(open(src, 'rb').read())
    if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
        sys.exit('debugbomb: %s is not a 64-bit little-endian ELF' % src)
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    def shdr(i):
        return shoff + i * shentsize
    stroff, = struct.unpack_from('<Q', data, shdr(shstrndx) + 0x18)
    target = None
    for i in range(shnum):
        name_off, = struct.unpack_from('<I', data, shdr(i))
        end = data.index(b'\0', stroff + name_off)
        if bytes(data[stroff + name_off:end]) == b'.debug_str':
            target = i
    if target is None:
        sys.exit('debugbomb: %s has no .debug_str (build it with -g)' % src)
    while len(data) % 8:
        data.append(0)
    off = len(data)
    data += blob
    h = shdr(target)
    flags, = struct.unpack_from('<Q', data, h + 0x08)
    struct.pack_into('<Q', data, h + 0x08, flags | SHF_COMPRESSED)
    struct.pack_into('<QQ', data, h + 0x18, off, len(blob))
    struct.pack_into('<Q', data, h + 0x30, 8)  # sh_addralign of a Chdr
    with open(dst, 'wb') as f:
        f.write(data)


def main():
    mib = int(sys.argv[1])
    comp = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    parts = [struct.pack('<IIQQ', ELFCOMPRESS_ZLIB, 0, mib << 20, 1)]
    for _ in range(mib):
        parts.append(comp.compress(chunk))
    parts.append(comp.flush())
    blob = b''.join(parts)
    args = sys.argv[2:]
    if not args or len(args) % 2:
        sys.exit('usage: debugbomb.py MIB IN OUT [IN OUT...]')
    for i in range(0, len(args), 2):
        bomb(args[i], args[i + 1], mib, blob)


if __name__ == '__main__':
    main()
