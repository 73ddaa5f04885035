import { describe, expect, it } from 'vitest';
import { keywordPrefilters, PREFILTER_MAX_PARTS, PREFILTER_MAX_TERMS, termPrefilter } from '../../../src/search/pg-reads.js';
import { fold, terms } from '../../../src/search/text.js';

describe('keyword prefilter', () => {
  // The SQL pattern runs on the NFKD form of the name; JS regex stands in for PostgreSQL's here.
  const matches = (name: string, term: string) => new RegExp(termPrefilter(term) ?? '').test(name.normalize('NFKD'));
  it('never excludes a name whose folded terms contain the term', () => {
    const names = ['Lightning Bölt', 'ÉCLAIR', 'ﬁre Ｂolt', 'Café ²', 'İstanbul', 'Ǆemal', 'Straße', 'Ωmega 42', 'Þór'];
    for (const name of names) {
      for (const t of terms(name)) expect(matches(name, t), `${name} / ${t}`).toBe(true);
    }
    expect(fold('Lightning Bölt')).toBe('lightning bolt');
  });
  it('still narrows', () => {
    expect(matches('Counterspell', 'bolt')).toBe(false);
    expect(matches('雷の一撃', '炎')).toBe(false);
  });
  it('matches CJK, kana with marks and Hangul as they fold', () => {
    for (const name of ['稲妻 ボルト', 'ガイア', 'ｶﾞｲｱ', '번개 볼트', 'Lightning 稲妻bolt']) {
      for (const t of terms(name)) expect(matches(name, t), `${name} / ${t}`).toBe(true);
    }
  });
  it('is bounded: few parts per term, few terms per keyword, no pattern for a term that cannot narrow', () => {
    const cjk = termPrefilter('漢'.repeat(255))!;
    expect([...cjk.matchAll(/漢/g)].length).toBe(PREFILTER_MAX_PARTS);
    expect(termPrefilter('a'.repeat(255))!.split('[^').length).toBe(PREFILTER_MAX_PARTS);
    expect(termPrefilter('ωωω')).toBeNull();
    expect(termPrefilter('ωaωωb')).toBe('[aA][^\\x01-\\x7f]*.*[^\\x01-\\x7f]*[bB]');
    const many = Array.from({ length: 100 }, (_, i) => `t${i}`);
    expect(keywordPrefilters(many)).toHaveLength(PREFILTER_MAX_TERMS);
  });
});
