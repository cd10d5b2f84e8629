// Building blocks shared by every fixture family: Apify-style ids, timestamps, and prose made
// from phrase banks. Prose length and vocabulary matter for the measurements (long text is
// where TOON has the least to remove), so they follow what the real Actors produce.
import type { Random } from './random.js';

/** Apify object ids are 17 characters from this alphabet (no 0/1/I/O/l to avoid misreading). */
const ID_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTWXYZabcdefghijkmnopqrstuvwxyz';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const HEX = '0123456789abcdef';

/** A 17-character Apify object id such as `HG7ML7M8z78YcAPEB`. */
export function apifyId(random: Random): string {
  return random.string(ID_ALPHABET, 17);
}

/** A base62 token, e.g. for URL signatures. */
export function base62(random: Random, length: number): string {
  return random.string(BASE62, length);
}

/** A lowercase hex string. */
export function hex(random: Random, length: number): string {
  return random.string(HEX, length);
}

/** A decimal digit string that does not start with 0. */
export function digits(random: Random, length: number): string {
  return String(random.int(1, 9)) + random.string('0123456789', length - 1);
}

/** ISO-8601 timestamp with milliseconds, as every Apify API date is written. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Milliseconds of a fixed "now" so the corpus never depends on the clock: 2026-05-12T10:00:00Z. */
export const CORPUS_NOW = Date.UTC(2026, 4, 12, 10, 0, 0);

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Rounds to `decimals` places without exponent artefacts for the magnitudes used here. */
export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/** Fills `{slot}` placeholders from `slots`, choosing one option per occurrence. */
export function fill(
  random: Random,
  template: string,
  slots: Readonly<Record<string, readonly string[]>>,
): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const options = slots[name];
    return options ? random.pick(options) : whole;
  });
}

/** Joins `count` distinct sentences from a bank, filling slots. */
export function sentences(
  random: Random,
  bank: readonly string[],
  count: number,
  slots: Readonly<Record<string, readonly string[]>> = {},
): string {
  return random
    .sample(bank, count)
    .map((template) => fill(random, template, slots))
    .join(' ');
}

/** A URL-safe slug of a title. */
export function slug(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

export const FIRST_NAMES = [
  'Anna',
  'Jakub',
  'Maria',
  'Lukas',
  'Sofia',
  'Daniel',
  'Emma',
  'Tomáš',
  'Chloe',
  'Marco',
  'Priya',
  'Jonas',
  'Elena',
  'Pavel',
  'Laura',
  'Mateo',
  'Hannah',
  'Oliver',
  'Zuzana',
  'Noah',
  'Isabel',
  'Kenji',
  'Fatima',
  'Lucas',
  'Amelia',
  'Ondřej',
  'Julia',
  'Samuel',
  'Léa',
  'Martin',
  'Grace',
  'David',
  'Eva',
  'Adam',
  'Mia',
  'Ahmed',
  'Sara',
  'Felix',
  'Nina',
  'Viktor',
  'Olivia',
  'Ben',
];

export const LAST_NAMES = [
  'Novák',
  'Schmidt',
  'Garcia',
  'Rossi',
  'Müller',
  'Dvořák',
  'Smith',
  'Kowalski',
  'Martin',
  'Johnson',
  'Bauer',
  'Moreau',
  'Horváth',
  'Svoboda',
  'Williams',
  'Fischer',
  'Lopez',
  'Nguyen',
  'Černý',
  'Brown',
  'Weber',
  'Kim',
  'Patel',
  'Wagner',
  'Procházka',
  'Taylor',
  'Becker',
  'Silva',
];

/** "Firstname Lastname". */
export function personName(random: Random): string {
  return `${random.pick(FIRST_NAMES)} ${random.pick(LAST_NAMES)}`;
}
