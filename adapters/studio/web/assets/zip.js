// SPDX-License-Identifier: Apache-2.0
// A zip archive of stored (uncompressed) entries, built in the browser
// with no dependency: the skill is a handful of small text files, so
// deflate would save little and cost a library (10 §6.13).

let table = null;

// crcTable is the CRC-32 (IEEE 802.3, reflected 0xEDB88320) lookup,
// built on first use.
function crcTable() {
  if (table) return table;
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

// crc32 is the checksum every zip entry carries.
export function crc32(bytes) {
  const tb = crcTable();
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = tb[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// DOS_DATE is 2026-01-01 00:00, fixed so the same skill makes the same
// bytes (a download is comparable to the last one).
const DOS_TIME = 0;
const DOS_DATE = ((2026 - 1980) << 9) | (1 << 5) | 1;

// zip packs [{path, text}] into a Blob; paths use '/', names are UTF-8
// (general purpose bit 11).
export function zip(files) {
  const enc = new TextEncoder();
  const parts = [];
  const central = [];
  let offset = 0;
  for (const f of files) {
    const name = enc.encode(f.path);
    const data = enc.encode(f.text);
    const crc = crc32(data);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    header(local, 4, crc, data.length, name.length);
    parts.push(local.buffer, name, data);
    const cd = new DataView(new ArrayBuffer(46));
    cd.setUint32(0, 0x02014b50, true);
    cd.setUint16(4, (3 << 8) | 20, true); // made by: Unix, version 2.0, so the mode below reads
    header(cd, 6, crc, data.length, name.length);
    cd.setUint32(38, 0o100644 << 16, true); // external attributes: a regular file, 0644
    cd.setUint32(42, offset, true);
    central.push(cd.buffer, name);
    offset += 30 + name.length + data.length;
  }
  const size = central.reduce((n, p) => n + p.byteLength, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, files.length, true);
  end.setUint16(10, files.length, true);
  end.setUint32(12, size, true);
  end.setUint32(16, offset, true);
  return new Blob([...parts, ...central, end.buffer], { type: 'application/zip' });
}

// header writes the fields local and central headers share, from at:
// version needed, flags, method (0 = stored), time, date, crc, sizes,
// name length (the extra field stays empty).
function header(v, at, crc, size, nameLen) {
  v.setUint16(at, 20, true);
  v.setUint16(at + 2, 0x0800, true);
  v.setUint16(at + 4, 0, true);
  v.setUint16(at + 6, DOS_TIME, true);
  v.setUint16(at + 8, DOS_DATE, true);
  v.setUint32(at + 10, crc, true);
  v.setUint32(at + 14, size, true);
  v.setUint32(at + 18, size, true);
  v.setUint16(at + 22, nameLen, true);
}
