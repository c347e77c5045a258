#!/usr/bin/env node
// Random ECMA-262 patterns with lookarounds and random texts, answered by JavaScript's own
// RegExp with the "u" flag (the reference docmodel's src/jsonschema/regex.c follows): one
// pattern a line, the JSON array [pattern, [text, expected], ...], expected true (a match
// somewhere) or false, or [pattern, "error"] (the u flag's grammar refuses the pattern).
// test/sql/jsonschema_lookaround.sql checks docmodel's answers against
// test/data/regex_lookaround.jsonl, made by
//   node test/regex/gen_lookaround.js 1 3000 > test/data/regex_lookaround.jsonl
// (seed, patterns, texts per pattern: 4 by default). Deterministic for a seed: its own
// generator, not Math.random.
'use strict';
const seed = Number(process.argv[2] || 1);
const npatterns = Number(process.argv[3] || 3000);
const textsPer = Number(process.argv[4] || 4);

let state = (seed * 2654435761) >>> 0 || 1;
function rnd() {
	// xorshift32
	state ^= state << 13; state >>>= 0;
	state ^= state >>> 17;
	state ^= state << 5; state >>>= 0;
	return state / 4294967296;
}
const int = (n) => Math.floor(rnd() * n);
const pick = (a) => a[int(a.length)];

const chars = ['a', 'a', 'a', 'b', 'b', '-', '.', '_', '1', 'é', '😀', ' ', '\n'];
const atoms = ['a', 'a', 'b', 'b', '-', '\\.', '.', '[ab]', '[^a]', '[a-c-]', '\\d', '\\w', '\\W',
	'\\s', '_', 'é', '😀', '[é😀]', '\\p{L}', '\\P{L}', '\\u{1F600}'];
const asserts = ['^', '$', '\\b', '\\B'];
const quants = ['*', '+', '?', '{0,2}', '{1,3}', '{2}', '*?', '+?', '??'];

function gen(depth) {
	const n = 1 + int(depth > 0 ? 2 : 4);
	let s = '';
	for (let i = 0; i < n; i++) s += term(depth);
	if (int(8) === 0) s += '|' + gen(depth + 1);
	return s;
}
function term(depth) {
	const r = int(100);
	if (depth < 3 && r < 30) {
		const kind = pick(['?=', '?!', '?<=', '?<!']);
		const body = int(10) === 0 ? '' : gen(depth + 1);
		// a lookahead taking a quantifier: a SyntaxError under the u flag
		const q = int(40) === 0 ? pick(quants) : '';
		return '(' + kind + body + ')' + q;
	}
	if (depth < 3 && r < 40) {
		const g = pick(['', '?:']);
		return '(' + g + gen(depth + 1) + ')' + (int(2) ? pick(quants) : '');
	}
	if (r < 50) return pick(asserts);
	return pick(atoms) + (int(3) === 0 ? pick(quants) : '');
}
function text() {
	const n = int(3) === 0 ? int(4) : int(13);
	let s = '';
	for (let i = 0; i < n; i++) s += pick(chars);
	return s;
}

// Whether re (flags "uy") matches at some code point boundary of t: ECMA-262's RegExpBuiltinExec
// tries lastIndex 0, then AdvanceStringIndex, which steps over a surrogate pair. V8's own
// unanchored search (re.test) also tries the index inside a pair, where an empty match can
// see two non-word code units (/\B/u.test("a😀a") is true there, false by the standard): the
// cases where the two answers differ are counted on stderr, the standard's answer kept.
function spec(re, t) {
	for (let i = 0; i <= t.length; i++) {
		re.lastIndex = i;
		if (re.test(t)) return true;
		const c = t.charCodeAt(i);
		if (c >= 0xD800 && c <= 0xDBFF && i + 1 < t.length) i++;
	}
	return false;
}

const out = [];
let cases = 0;
let quirks = 0;
for (let i = 0; i < npatterns; i++) {
	const p = gen(0);
	let re = null;
	let sticky = null;
	try { re = new RegExp(p, 'u'); sticky = new RegExp(p, 'uy'); } catch (e) { re = null; }
	cases++;
	if (re === null) { out.push(JSON.stringify([p, 'error'])); continue; }
	const line = [p];
	for (let j = 0; j < textsPer; j++) {
		const t = text();
		const expected = spec(sticky, t);
		if (expected !== re.test(t)) quirks++;
		line.push([t, expected]);
		cases += j > 0;
	}
	out.push(JSON.stringify(line));
}
process.stdout.write(out.join('\n') + '\n');
process.stderr.write(`${cases} cases, ${quirks} where V8's RegExp.prototype.test differs\n`);
