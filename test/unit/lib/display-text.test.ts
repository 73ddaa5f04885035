import { describe, expect, it } from 'vitest';
import { displayText, safeImageUrl } from '../../../src/lib/display-text.js';

describe('displayText', () => {
  it('drops bidirectional overrides, embeddings, isolates and marks', () => {
    // "Dragon gpj.exe" with a right-to-left override would show as "Dragon exe.jpg".
    expect(displayText('Dragon \u202Egpj.exe')).toBe('Dragon gpj.exe');
    expect(displayText('\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061Cok')).toBe('ok');
  });

  it('keeps right-to-left letters and every other character as they are', () => {
    for (const s of ['דרקון', 'تنين', 'Ætherflux — “Foil” ★', 'ドラゴン', '']) expect(displayText(s)).toBe(s);
    expect(displayText(null)).toBeNull();
  });
});

describe('safeImageUrl', () => {
  it('keeps absolute http and https URLs', () => {
    expect(safeImageUrl('https://img.example/101.jpg')).toBe('https://img.example/101.jpg');
    expect(safeImageUrl('http://cdn.example:8080/a/b.png?x=1')).toBe('http://cdn.example:8080/a/b.png?x=1');
  });

  it('drops script, data, relative, protocol-relative and malformed values', () => {
    for (const bad of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'data:image/svg+xml;base64,PHN2Zz4=',
      'vbscript:x',
      '/img/1.jpg',
      '//evil.example/x.jpg',
      'https://',
      'http//x',
      'file:///etc/passwd',
    ]) {
      expect(safeImageUrl(bad), bad).toBeNull();
    }
    expect(safeImageUrl(null)).toBeNull();
  });
});
