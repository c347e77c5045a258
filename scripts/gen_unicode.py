#!/usr/bin/env python3
"""Generate src/jsonschema/unicode_props.c: the code point sets of the Unicode properties
ECMA-262 lets a regular expression name with \\p{...} under the "u" flag
(General_Category, Script, Script_Extensions and ECMA-262's table of binary
properties), as sorted, merged code point ranges; and for IDNA2008's rules
(idn-hostname) the Bidi_Class (RFC 5893's Bidi rule) and Joining_Type (ZERO
WIDTH NON-JOINER's context, RFC 5892 appendix A.1) of every code point.

Usage: scripts/gen_unicode.py [UCD_DIR] > src/jsonschema/unicode_props.c
UCD_DIR is the Unicode Character Database (default /usr/share/unicode, Debian's
unicode-data package). The build never needs it: the output is committed.
"""
import os
import re
import sys

UCD = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/unicode"
MAX_CP = 0x10FFFF

# ECMA-262's table of binary Unicode properties: canonical name and alias.
BINARY = [
    ("ASCII", None), ("ASCII_Hex_Digit", "AHex"), ("Alphabetic", "Alpha"),
    ("Any", None), ("Assigned", None), ("Bidi_Control", "Bidi_C"),
    ("Bidi_Mirrored", "Bidi_M"), ("Case_Ignorable", "CI"), ("Cased", None),
    ("Changes_When_Casefolded", "CWCF"), ("Changes_When_Casemapped", "CWCM"),
    ("Changes_When_Lowercased", "CWL"),
    ("Changes_When_NFKC_Casefolded", "CWKCF"),
    ("Changes_When_Titlecased", "CWT"), ("Changes_When_Uppercased", "CWU"),
    ("Dash", None), ("Default_Ignorable_Code_Point", "DI"),
    ("Deprecated", "Dep"), ("Diacritic", "Dia"), ("Emoji", None),
    ("Emoji_Component", "EComp"), ("Emoji_Modifier", "EMod"),
    ("Emoji_Modifier_Base", "EBase"), ("Emoji_Presentation", "EPres"),
    ("Extended_Pictographic", "ExtPict"), ("Extender", "Ext"),
    ("Grapheme_Base", "Gr_Base"), ("Grapheme_Extend", "Gr_Ext"),
    ("Hex_Digit", "Hex"), ("IDS_Binary_Operator", "IDSB"),
    ("IDS_Trinary_Operator", "IDST"), ("ID_Continue", "IDC"),
    ("ID_Start", "IDS"), ("Ideographic", "Ideo"), ("Join_Control", "Join_C"),
    ("Logical_Order_Exception", "LOE"), ("Lowercase", "Lower"),
    ("Math", None), ("Noncharacter_Code_Point", "NChar"),
    ("Pattern_Syntax", "Pat_Syn"), ("Pattern_White_Space", "Pat_WS"),
    ("Quotation_Mark", "QMark"), ("Radical", None),
    ("Regional_Indicator", "RI"), ("Sentence_Terminal", "STerm"),
    ("Soft_Dotted", "SD"), ("Terminal_Punctuation", "Term"),
    ("Unified_Ideograph", "UIdeo"), ("Uppercase", "Upper"),
    ("Variation_Selector", "VS"), ("White_Space", "space"),
    ("XID_Continue", "XIDC"), ("XID_Start", "XIDS"),
]


def lines(name):
    with open(os.path.join(UCD, name), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                yield [x.strip() for x in line.split(";")]


def cps(field):
    if ".." in field:
        a, b = field.split("..")
        return range(int(a, 16), int(b, 16) + 1)
    return range(int(field, 16), int(field, 16) + 1)


def ranges(points):
    out = []
    for c in sorted(points):
        if out and out[-1][1] + 1 == c:
            out[-1][1] = c
        else:
            out.append([c, c])
    return [tuple(r) for r in out]


def version():
    with open(os.path.join(UCD, "DerivedAge.txt"), encoding="utf-8") as f:
        m = re.match(r"# DerivedAge-(\d+\.\d+\.\d+)\.txt", f.readline())
    return m.group(1) if m else "unknown"


# General_Category of every code point (Cn where UnicodeData says nothing).
gc = ["Cn"] * (MAX_CP + 1)
bidi_m = set()
first = None
for f in lines("UnicodeData.txt"):
    cp = int(f[0], 16)
    if f[1].endswith(", First>"):
        first = cp
        continue
    lo = first if f[1].endswith(", Last>") else cp
    first = None
    for c in range(lo, cp + 1):
        gc[c] = f[2]
        if f[9] == "Y":
            bidi_m.add(c)

# Value aliases: every name of a General_Category or Script value.
gc_names = {}     # name -> short value
gc_groups = {}    # group -> its leaves
sc_names = {}
with open(os.path.join(UCD, "PropertyValueAliases.txt"), encoding="utf-8") as fh:
    for raw in fh:
        body, _, comment = raw.partition("#")
        f = [x.strip() for x in body.split(";")]
        if len(f) < 3 or f[0] not in ("gc", "sc"):
            continue
        for n in f[1:]:
            (gc_names if f[0] == "gc" else sc_names)[n] = f[1]
        if f[0] == "gc" and "|" in comment:
            gc_groups[f[1]] = [x.strip() for x in comment.split("|")]

leaves = {}
for c, v in enumerate(gc):
    leaves.setdefault(v, []).append(c)
gc_sets = {}
for v in set(gc_names.values()):
    members = gc_groups.get(v, [v])
    pts = []
    for m in members:
        pts.extend(leaves.get(m, []))
    gc_sets[v] = ranges(pts)

# Script: long names in Scripts.txt, Unknown (Zzzz) where it says nothing.
long_to_short = {}
for n, s in sc_names.items():
    long_to_short.setdefault(n, s)
script = ["Zzzz"] * (MAX_CP + 1)
for f in lines("Scripts.txt"):
    for c in cps(f[0]):
        script[c] = long_to_short[f[1]]
scx = {}
for f in lines("ScriptExtensions.txt"):
    vals = [long_to_short[v] for v in f[1].split()]
    for c in cps(f[0]):
        scx[c] = vals
sc_pts = {}
scx_pts = {}
for c in range(MAX_CP + 1):
    sc_pts.setdefault(script[c], []).append(c)
    for v in scx.get(c, [script[c]]):
        scx_pts.setdefault(v, []).append(c)
sc_sets = {v: ranges(sc_pts.get(v, [])) for v in set(sc_names.values())}
scx_sets = {v: ranges(scx_pts.get(v, [])) for v in set(sc_names.values())}

# Binary properties.
binary_pts = {}
for fname in ("PropList.txt", "DerivedCoreProperties.txt",
              "DerivedNormalizationProps.txt", "emoji/emoji-data.txt"):
    for f in lines(fname):
        if len(f) == 2:
            binary_pts.setdefault(f[1], set()).update(cps(f[0]))
binary_pts["ASCII"] = set(range(0x80))
binary_pts["Any"] = set(range(MAX_CP + 1))
binary_pts["Assigned"] = {c for c in range(MAX_CP + 1) if gc[c] != "Cn"}
binary_pts["Bidi_Mirrored"] = bidi_m
binary_sets = {}
for name, _ in BINARY:
    if name not in binary_pts:
        sys.exit("gen_unicode: no data for the binary property " + name)
    binary_sets[name] = ranges(binary_pts[name])

# Bidi_Class: the classes RFC 5893 names, the others as UNICODE_BIDI_OTHER; L
# (the default) is not listed.
BIDI = ["R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"]
bidi = {}
for f in lines("extracted/DerivedBidiClass.txt"):
    if f[1] != "L":
        for c in cps(f[0]):
            bidi[c] = f[1] if f[1] in BIDI else "OTHER"


def valued_ranges(values):
    out = []
    for c in sorted(values):
        v = values[c]
        if out and out[-1][1] + 1 == c and out[-1][2] == v:
            out[-1][1] = c
        else:
            out.append([c, c, v])
    return out


bidi_ranges = valued_ranges(bidi)
# Joining_Type: U (the default) is not listed.
joining = {}
for f in lines("extracted/DerivedJoiningType.txt"):
    if f[1] != "U":
        for c in cps(f[0]):
            joining[c] = f[1]
joining_ranges = valued_ranges(joining)

# One table of ranges; identical sets share their ranges.
table = []
where = {}


def place(rs):
    key = tuple(rs)
    if key not in where:
        where[key] = (len(table), len(rs))
        table.extend(rs)
    return where[key]


entries = []  # (kind, name, set, set2)
for n in sorted(gc_names):
    entries.append(("UNICODE_GC", n, place(gc_sets[gc_names[n]]), None))
for n in sorted(sc_names):
    v = sc_names[n]
    entries.append(("UNICODE_SCRIPT", n, place(sc_sets[v]),
                    place(scx_sets[v])))
binary_names = {}
for name, alias in BINARY:
    binary_names[name] = name
    if alias:
        binary_names[alias] = name
for n in sorted(binary_names):
    entries.append(("UNICODE_BINARY", n, place(binary_sets[binary_names[n]]),
                    None))

out = sys.stdout
out.write("""/*-------------------------------------------------------------------------
 *
 * jsonschema/unicode_props.c
 *	  The Unicode properties ECMA-262 patterns name with \\p{...}, as sorted
 *	  and merged code point ranges: Unicode %s.
 *
 *	  Generated by scripts/gen_unicode.py from the Unicode Character
 *	  Database (Debian's unicode-data package); do not edit.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "jsonschema/unicode_props.h"

/* clang-format off */
""" % version())
out.write("const char *const DocmodelUnicodeVersion = \"%s\";\n\n" % version())
out.write("static const UnicodeRange Ranges[%d] = {\n" % len(table))
for i in range(0, len(table), 4):
    out.write("\t" + " ".join("{0x%X, 0x%X}," % r for r in table[i:i + 4])
              + "\n")
out.write("};\n\n")
out.write("static const UnicodeName Names[%d] = {\n" % len(entries))
for kind, n, s, s2 in entries:
    s2 = s2 or (0, 0)
    out.write('\t{%s, "%s", %d, %d, %d, %d},\n'
              % (kind, n, s[0], s[1], s2[0], s2[1]))
out.write("};\n\n")
out.write("static const UnicodeValueRange BidiRanges[%d] = {\n"
          % len(bidi_ranges))
for i in range(0, len(bidi_ranges), 2):
    out.write("\t" + " ".join("{0x%X, 0x%X, UNICODE_BIDI_%s}," % tuple(r)
                              for r in bidi_ranges[i:i + 2]) + "\n")
out.write("};\n\n")
out.write("static const UnicodeValueRange JoiningRanges[%d] = {\n"
          % len(joining_ranges))
for i in range(0, len(joining_ranges), 3):
    out.write("\t" + " ".join("{0x%X, 0x%X, '%s'}," % tuple(r)
                              for r in joining_ranges[i:i + 3]) + "\n")
out.write("};\n/* clang-format on */\n")
out.write("""
static int
NameCmp(const void *key, const void *elem)
{
	const UnicodeName *a = key;
	const UnicodeName *b = elem;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return strcmp(a->name, b->name);
}

/*
 * The code point ranges of a property value: kind UNICODE_GC (a General_Category
 * value), UNICODE_SCRIPT (a Script value; Script_Extensions when extensions)
 * or UNICODE_BINARY (a binary property). Names are matched exactly (case
 * included); false when there is no such name.
 */
bool
DocmodelUnicodePropertyRanges(UnicodeKind kind, const char *name,
							  bool extensions, const UnicodeRange **ranges,
							  int *n)
{
	UnicodeName key = {kind, name, 0, 0, 0, 0};
	const UnicodeName *e;

	e = bsearch(&key, Names, lengthof(Names), sizeof(UnicodeName), NameCmp);
	if (e == NULL)
		return false;
	*ranges = Ranges + (extensions ? e->start2 : e->start);
	*n = extensions ? e->n2 : e->n;
	return true;
}

/* The value of c in ranges r[0..n) (sorted, disjoint), or dflt. */
static int
ValueOf(const UnicodeValueRange *r, int n, uint32 c, int dflt)
{
	int i = DocmodelUnicodeRangeFind(r, sizeof(UnicodeValueRange), n, c);

	return i >= 0 ? r[i].value : dflt;
}

/* The index of the range holding c; see unicode_props.h. */
int
DocmodelUnicodeRangeFind(const void *ranges, size_t size, int n, uint32 c)
{
	int lo = 0;
	int hi = n - 1;

	while (lo <= hi)
	{
		int mid = (lo + hi) / 2;
		const UnicodeRange *r =
			(const UnicodeRange *) ((const char *) ranges + size * mid);

		if (c < r->lo)
			hi = mid - 1;
		else if (c > r->hi)
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

/* The Bidi_Class of c (UNICODE_BIDI_OTHER: a class RFC 5893 does not name). */
UnicodeBidiClass
DocmodelUnicodeBidiClass(uint32 c)
{
	return (UnicodeBidiClass) ValueOf(BidiRanges, lengthof(BidiRanges), c,
									  UNICODE_BIDI_L);
}

/* The Joining_Type of c: 'C', 'D', 'L', 'R', 'T' or 'U'. */
char
DocmodelUnicodeJoiningType(uint32 c)
{
	return (char) ValueOf(JoiningRanges, lengthof(JoiningRanges), c, 'U');
}
""")
