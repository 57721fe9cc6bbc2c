// Legacy encodings decode from the BOM, the Content-Type charset or <meta>, in that order; UTF-8 otherwise.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { decodeBody } from '../../src/net/charset.js';

const page = (body: string, head = '') =>
  `<!doctype html><html><head>${head}<title>t</title></head><body><p>${body}</p></body></html>`;

describe('decodeBody', () => {
  test('iso-8859-1 from the Content-Type charset', () => {
    const text = 'Déjà vu à la française, naïve façade.';
    assert.ok(decodeBody(iconv.encode(page(text), 'latin1'), 'text/html; charset=ISO-8859-1').includes(text));
  });

  test('windows-1252 smart quotes and the euro sign', () => {
    const bytes = Buffer.from([0x93, 0x74, 0x65, 0x6e, 0x94, 0x20, 0x31, 0x30, 0x80]);
    assert.equal(decodeBody(bytes, 'text/plain; charset=windows-1252'), '“ten” 10€');
  });

  test('every windows-1252 byte decodes as the WHATWG index says, whatever the label', () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    // iconv-lite implements the WHATWG mapping; Node's own TextDecoder gets 0x80-0x9F wrong in some versions.
    const expected = iconv.decode(bytes, 'win1252').replace(/\ufffd/g, (_, i: number) => String.fromCharCode(i));
    for (const label of ['windows-1252', 'iso-8859-1', 'latin1', 'us-ascii', 'cp1252']) {
      assert.equal(decodeBody(bytes, `text/plain; charset=${label}`), expected, label);
    }
  });

  test('shift_jis', () => {
    const text = '吾輩は猫である。名前はまだ無い。';
    assert.ok(decodeBody(iconv.encode(page(text), 'shift_jis'), 'text/html; charset=Shift_JIS').includes(text));
  });

  test('gbk', () => {
    const text = '这是一个用于测试的中文段落。';
    assert.ok(decodeBody(iconv.encode(page(text), 'gbk'), 'text/html;charset="gbk"').includes(text));
  });

  test('a UTF-8 BOM wins over a wrong header and is stripped', () => {
    const text = 'Straße und Grüße aus Köln.';
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(page(text))]);
    const decoded = decodeBody(bytes, 'text/html; charset=iso-8859-1');
    assert.ok(decoded.includes(text));
    assert.ok(!decoded.startsWith('\uFEFF'));
  });

  test('a UTF-16LE BOM', () => {
    const text = 'Ünïcödé 日本';
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(page(text), 'utf16le')]);
    const decoded = decodeBody(bytes, 'text/html');
    assert.ok(decoded.startsWith('<!doctype html>'));
    assert.ok(decoded.includes(text));
  });

  test('<meta charset> when the header names none', () => {
    const text = 'Café crème';
    assert.ok(
      decodeBody(iconv.encode(page(text, '<meta charset="windows-1252">'), 'win1252'), 'text/html').includes(text),
    );
  });

  test('<meta http-equiv> when there is no header at all', () => {
    const text = '日本語のページ';
    const head = '<meta http-equiv="Content-Type" content="text/html; charset=shift_jis">';
    assert.ok(decodeBody(iconv.encode(page(text, head), 'shift_jis'), undefined).includes(text));
  });

  test('the header charset overrides <meta>', () => {
    const text = 'Grüße';
    const bytes = iconv.encode(page(text, '<meta charset="shift_jis">'), 'latin1');
    assert.ok(decodeBody(bytes, 'text/html; charset=iso-8859-1').includes(text));
  });

  test('an unknown header charset is ignored in favour of <meta>', () => {
    const text = 'Café';
    const bytes = iconv.encode(page(text, '<meta charset="windows-1252">'), 'win1252');
    assert.ok(decodeBody(bytes, 'text/html; charset=no-such-charset').includes(text));
  });

  test('UTF-8 when nothing says otherwise', () => {
    const text = 'naïve 日本 😀';
    assert.ok(decodeBody(Buffer.from(page(text)), undefined).includes(text));
    assert.equal(decodeBody(Buffer.from('{"a":"é"}'), 'application/json'), '{"a":"é"}');
  });
});
