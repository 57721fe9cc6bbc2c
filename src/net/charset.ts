// Bytes to text the way browsers do it: BOM, then the Content-Type charset, then <meta charset>, else UTF-8.
import sniffHTMLEncoding from 'html-encoding-sniffer';

/**
 * What windows-1252 bytes 0x80–0x9F mean (WHATWG index). Node ≥ 20.18.3 / 22.13 decodes windows-1252 as
 * ISO-8859-1, turning smart quotes and € into control characters (nodejs/node#60888), so we map them ourselves.
 * Every label for Latin-1, ASCII and cp1252 resolves to windows-1252, which makes this the most common legacy case.
 */
// prettier-ignore
const WINDOWS_1252_HIGH = [
  0x20ac, 0x0081, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021,
  0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008d, 0x017d, 0x008f,
  0x0090, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014,
  0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x009d, 0x017e, 0x0178,
];

function decodeWindows1252(body: Buffer): string {
  return body
    .toString('latin1')
    .replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80]!));
}

function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  const label = match?.[1] ?? match?.[2];
  return label ? label : undefined;
}

/**
 * Decodes a response body. UTF-8 is the default rather than the spec's windows-1252 because almost all of today's
 * web is UTF-8 and an unlabelled page is far likelier to be UTF-8 than Latin-1. An unknown header charset is
 * ignored (the sniffer moves on to <meta>), as browsers do.
 */
export function decodeBody(body: Buffer, contentType: string | undefined): string {
  const encoding = sniffHTMLEncoding(body, {
    transportLayerEncodingLabel: charsetOf(contentType),
    defaultEncoding: 'UTF-8',
  });
  if (encoding === 'windows-1252') return decodeWindows1252(body);
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding);
  } catch {
    // The sniffer knows x-user-defined, which Node's TextDecoder does not; UTF-8 is the sane fallback.
    decoder = new TextDecoder('utf-8');
  }
  // TextDecoder drops the BOM that picked the encoding (ignoreBOM defaults to false).
  return decoder.decode(body);
}
