/**
 * "a user", "an order": the indefinite article before a collection's name, which the
 * operator chooses, so the summaries read right for any name. English picks it by sound,
 * not spelling; these rules cover the common cases: a vowel letter that sounds like a
 * consonant ("a user", "a euro", "a one-off") and a silent h ("an hour").
 */
const CONSONANT_SOUNDS = /^(?:u[bcdfgjklmnpqrstvz][aeiou]|eu|ewe|one|once|uni)/;
const VOWEL_SOUNDS = /^(?:[aeiou]|hour|honou?r|honest|heir)/;

/** `noun` after its indefinite article: "a user", "an order". */
export function withArticle(noun: string): string {
  const lower = noun.toLowerCase();
  const vowel = VOWEL_SOUNDS.test(lower) && !CONSONANT_SOUNDS.test(lower);
  return `${vowel ? 'an' : 'a'} ${noun}`;
}
