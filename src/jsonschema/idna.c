/*-------------------------------------------------------------------------
 *
 * jsonschema/idna.c
 *	  Host names (RFC 1123) and IDNA2008 host names (RFC 5890, 5891, 5892,
 *	  5893) for the hostname and idn-hostname formats.
 *
 *	  An A-label ("xn--" and Punycode, RFC 3492) is decoded; the U-label it
 *	  encodes must keep the rules below and re-encode to it (its canonical
 *	  form). A U-label's A-label form is what the 63 octet label and 253
 *	  octet name limits measure. The rules on a U-label (RFC 5892): no
 *	  combining mark first, no "--" in the third and fourth places, the
 *	  exceptions DISALLOWED, and the contextual rules of its appendix A
 *	  (MIDDLE DOT, Greek KERAIA, Hebrew GERESH and GERSHAYIM, KATAKANA MIDDLE
 *	  DOT, Arabic-Indic digits, ZERO WIDTH JOINER after a virama, ZERO WIDTH
 *	  NON-JOINER after a virama or between joining letters); and in a name
 *	  holding a right-to-left label, the Bidi rule (RFC 5893) on every label.
 *	  The tables below were generated from Unicode 14.0 (combining marks:
 *	  general categories Mn, Mc, Me; viramas: canonical combining class 9);
 *	  scripts are taken by their blocks; Bidi_Class, Joining_Type and
 *	  General_Category come from unicode_props.c. Not checked: the derived
 *	  property of every code point (PVALID or DISALLOWED); for the code
 *	  points an A-label decodes to, it is approximated by their general
 *	  category (letters other than upper and title case, marks, decimal
 *	  digits, and the exceptions RFC 5892 lists).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "jsonschema/idna.h"
#include "jsonschema/unicode_props.h"
#include "miscadmin.h"

typedef struct CpRange
{
	pg_wchar lo;
	pg_wchar hi;
} CpRange;

/* Unicode 14.0's combining marks (Mn, Mc, Me). */
static const CpRange Marks[] = {
	{0x0300, 0x036F},   {0x0483, 0x0489},   {0x0591, 0x05BD},
	{0x05BF, 0x05BF},   {0x05C1, 0x05C2},   {0x05C4, 0x05C5},
	{0x05C7, 0x05C7},   {0x0610, 0x061A},   {0x064B, 0x065F},
	{0x0670, 0x0670},   {0x06D6, 0x06DC},   {0x06DF, 0x06E4},
	{0x06E7, 0x06E8},   {0x06EA, 0x06ED},   {0x0711, 0x0711},
	{0x0730, 0x074A},   {0x07A6, 0x07B0},   {0x07EB, 0x07F3},
	{0x07FD, 0x07FD},   {0x0816, 0x0819},   {0x081B, 0x0823},
	{0x0825, 0x0827},   {0x0829, 0x082D},   {0x0859, 0x085B},
	{0x0898, 0x089F},   {0x08CA, 0x08E1},   {0x08E3, 0x0903},
	{0x093A, 0x093C},   {0x093E, 0x094F},   {0x0951, 0x0957},
	{0x0962, 0x0963},   {0x0981, 0x0983},   {0x09BC, 0x09BC},
	{0x09BE, 0x09C4},   {0x09C7, 0x09C8},   {0x09CB, 0x09CD},
	{0x09D7, 0x09D7},   {0x09E2, 0x09E3},   {0x09FE, 0x09FE},
	{0x0A01, 0x0A03},   {0x0A3C, 0x0A3C},   {0x0A3E, 0x0A42},
	{0x0A47, 0x0A48},   {0x0A4B, 0x0A4D},   {0x0A51, 0x0A51},
	{0x0A70, 0x0A71},   {0x0A75, 0x0A75},   {0x0A81, 0x0A83},
	{0x0ABC, 0x0ABC},   {0x0ABE, 0x0AC5},   {0x0AC7, 0x0AC9},
	{0x0ACB, 0x0ACD},   {0x0AE2, 0x0AE3},   {0x0AFA, 0x0AFF},
	{0x0B01, 0x0B03},   {0x0B3C, 0x0B3C},   {0x0B3E, 0x0B44},
	{0x0B47, 0x0B48},   {0x0B4B, 0x0B4D},   {0x0B55, 0x0B57},
	{0x0B62, 0x0B63},   {0x0B82, 0x0B82},   {0x0BBE, 0x0BC2},
	{0x0BC6, 0x0BC8},   {0x0BCA, 0x0BCD},   {0x0BD7, 0x0BD7},
	{0x0C00, 0x0C04},   {0x0C3C, 0x0C3C},   {0x0C3E, 0x0C44},
	{0x0C46, 0x0C48},   {0x0C4A, 0x0C4D},   {0x0C55, 0x0C56},
	{0x0C62, 0x0C63},   {0x0C81, 0x0C83},   {0x0CBC, 0x0CBC},
	{0x0CBE, 0x0CC4},   {0x0CC6, 0x0CC8},   {0x0CCA, 0x0CCD},
	{0x0CD5, 0x0CD6},   {0x0CE2, 0x0CE3},   {0x0D00, 0x0D03},
	{0x0D3B, 0x0D3C},   {0x0D3E, 0x0D44},   {0x0D46, 0x0D48},
	{0x0D4A, 0x0D4D},   {0x0D57, 0x0D57},   {0x0D62, 0x0D63},
	{0x0D81, 0x0D83},   {0x0DCA, 0x0DCA},   {0x0DCF, 0x0DD4},
	{0x0DD6, 0x0DD6},   {0x0DD8, 0x0DDF},   {0x0DF2, 0x0DF3},
	{0x0E31, 0x0E31},   {0x0E34, 0x0E3A},   {0x0E47, 0x0E4E},
	{0x0EB1, 0x0EB1},   {0x0EB4, 0x0EBC},   {0x0EC8, 0x0ECD},
	{0x0F18, 0x0F19},   {0x0F35, 0x0F35},   {0x0F37, 0x0F37},
	{0x0F39, 0x0F39},   {0x0F3E, 0x0F3F},   {0x0F71, 0x0F84},
	{0x0F86, 0x0F87},   {0x0F8D, 0x0F97},   {0x0F99, 0x0FBC},
	{0x0FC6, 0x0FC6},   {0x102B, 0x103E},   {0x1056, 0x1059},
	{0x105E, 0x1060},   {0x1062, 0x1064},   {0x1067, 0x106D},
	{0x1071, 0x1074},   {0x1082, 0x108D},   {0x108F, 0x108F},
	{0x109A, 0x109D},   {0x135D, 0x135F},   {0x1712, 0x1715},
	{0x1732, 0x1734},   {0x1752, 0x1753},   {0x1772, 0x1773},
	{0x17B4, 0x17D3},   {0x17DD, 0x17DD},   {0x180B, 0x180D},
	{0x180F, 0x180F},   {0x1885, 0x1886},   {0x18A9, 0x18A9},
	{0x1920, 0x192B},   {0x1930, 0x193B},   {0x1A17, 0x1A1B},
	{0x1A55, 0x1A5E},   {0x1A60, 0x1A7C},   {0x1A7F, 0x1A7F},
	{0x1AB0, 0x1ACE},   {0x1B00, 0x1B04},   {0x1B34, 0x1B44},
	{0x1B6B, 0x1B73},   {0x1B80, 0x1B82},   {0x1BA1, 0x1BAD},
	{0x1BE6, 0x1BF3},   {0x1C24, 0x1C37},   {0x1CD0, 0x1CD2},
	{0x1CD4, 0x1CE8},   {0x1CED, 0x1CED},   {0x1CF4, 0x1CF4},
	{0x1CF7, 0x1CF9},   {0x1DC0, 0x1DFF},   {0x20D0, 0x20F0},
	{0x2CEF, 0x2CF1},   {0x2D7F, 0x2D7F},   {0x2DE0, 0x2DFF},
	{0x302A, 0x302F},   {0x3099, 0x309A},   {0xA66F, 0xA672},
	{0xA674, 0xA67D},   {0xA69E, 0xA69F},   {0xA6F0, 0xA6F1},
	{0xA802, 0xA802},   {0xA806, 0xA806},   {0xA80B, 0xA80B},
	{0xA823, 0xA827},   {0xA82C, 0xA82C},   {0xA880, 0xA881},
	{0xA8B4, 0xA8C5},   {0xA8E0, 0xA8F1},   {0xA8FF, 0xA8FF},
	{0xA926, 0xA92D},   {0xA947, 0xA953},   {0xA980, 0xA983},
	{0xA9B3, 0xA9C0},   {0xA9E5, 0xA9E5},   {0xAA29, 0xAA36},
	{0xAA43, 0xAA43},   {0xAA4C, 0xAA4D},   {0xAA7B, 0xAA7D},
	{0xAAB0, 0xAAB0},   {0xAAB2, 0xAAB4},   {0xAAB7, 0xAAB8},
	{0xAABE, 0xAABF},   {0xAAC1, 0xAAC1},   {0xAAEB, 0xAAEF},
	{0xAAF5, 0xAAF6},   {0xABE3, 0xABEA},   {0xABEC, 0xABED},
	{0xFB1E, 0xFB1E},   {0xFE00, 0xFE0F},   {0xFE20, 0xFE2F},
	{0x101FD, 0x101FD}, {0x102E0, 0x102E0}, {0x10376, 0x1037A},
	{0x10A01, 0x10A03}, {0x10A05, 0x10A06}, {0x10A0C, 0x10A0F},
	{0x10A38, 0x10A3A}, {0x10A3F, 0x10A3F}, {0x10AE5, 0x10AE6},
	{0x10D24, 0x10D27}, {0x10EAB, 0x10EAC}, {0x10F46, 0x10F50},
	{0x10F82, 0x10F85}, {0x11000, 0x11002}, {0x11038, 0x11046},
	{0x11070, 0x11070}, {0x11073, 0x11074}, {0x1107F, 0x11082},
	{0x110B0, 0x110BA}, {0x110C2, 0x110C2}, {0x11100, 0x11102},
	{0x11127, 0x11134}, {0x11145, 0x11146}, {0x11173, 0x11173},
	{0x11180, 0x11182}, {0x111B3, 0x111C0}, {0x111C9, 0x111CC},
	{0x111CE, 0x111CF}, {0x1122C, 0x11237}, {0x1123E, 0x1123E},
	{0x112DF, 0x112EA}, {0x11300, 0x11303}, {0x1133B, 0x1133C},
	{0x1133E, 0x11344}, {0x11347, 0x11348}, {0x1134B, 0x1134D},
	{0x11357, 0x11357}, {0x11362, 0x11363}, {0x11366, 0x1136C},
	{0x11370, 0x11374}, {0x11435, 0x11446}, {0x1145E, 0x1145E},
	{0x114B0, 0x114C3}, {0x115AF, 0x115B5}, {0x115B8, 0x115C0},
	{0x115DC, 0x115DD}, {0x11630, 0x11640}, {0x116AB, 0x116B7},
	{0x1171D, 0x1172B}, {0x1182C, 0x1183A}, {0x11930, 0x11935},
	{0x11937, 0x11938}, {0x1193B, 0x1193E}, {0x11940, 0x11940},
	{0x11942, 0x11943}, {0x119D1, 0x119D7}, {0x119DA, 0x119E0},
	{0x119E4, 0x119E4}, {0x11A01, 0x11A0A}, {0x11A33, 0x11A39},
	{0x11A3B, 0x11A3E}, {0x11A47, 0x11A47}, {0x11A51, 0x11A5B},
	{0x11A8A, 0x11A99}, {0x11C2F, 0x11C36}, {0x11C38, 0x11C3F},
	{0x11C92, 0x11CA7}, {0x11CA9, 0x11CB6}, {0x11D31, 0x11D36},
	{0x11D3A, 0x11D3A}, {0x11D3C, 0x11D3D}, {0x11D3F, 0x11D45},
	{0x11D47, 0x11D47}, {0x11D8A, 0x11D8E}, {0x11D90, 0x11D91},
	{0x11D93, 0x11D97}, {0x11EF3, 0x11EF6}, {0x16AF0, 0x16AF4},
	{0x16B30, 0x16B36}, {0x16F4F, 0x16F4F}, {0x16F51, 0x16F87},
	{0x16F8F, 0x16F92}, {0x16FE4, 0x16FE4}, {0x16FF0, 0x16FF1},
	{0x1BC9D, 0x1BC9E}, {0x1CF00, 0x1CF2D}, {0x1CF30, 0x1CF46},
	{0x1D165, 0x1D169}, {0x1D16D, 0x1D172}, {0x1D17B, 0x1D182},
	{0x1D185, 0x1D18B}, {0x1D1AA, 0x1D1AD}, {0x1D242, 0x1D244},
	{0x1DA00, 0x1DA36}, {0x1DA3B, 0x1DA6C}, {0x1DA75, 0x1DA75},
	{0x1DA84, 0x1DA84}, {0x1DA9B, 0x1DA9F}, {0x1DAA1, 0x1DAAF},
	{0x1E000, 0x1E006}, {0x1E008, 0x1E018}, {0x1E01B, 0x1E021},
	{0x1E023, 0x1E024}, {0x1E026, 0x1E02A}, {0x1E130, 0x1E136},
	{0x1E2AE, 0x1E2AE}, {0x1E2EC, 0x1E2EF}, {0x1E8D0, 0x1E8D6},
	{0x1E944, 0x1E94A}, {0xE0100, 0xE01EF},
};

/* Unicode 14.0's viramas (canonical combining class 9). */
static const pg_wchar Viramas[] = {
	0x094D,  0x09CD,  0x0A4D,  0x0ACD,  0x0B4D,  0x0BCD,  0x0C4D,  0x0CCD,
	0x0D3B,  0x0D3C,  0x0D4D,  0x0DCA,  0x0E3A,  0x0EBA,  0x0F84,  0x1039,
	0x103A,  0x1714,  0x1715,  0x1734,  0x17D2,  0x1A60,  0x1B44,  0x1BAA,
	0x1BAB,  0x1BF2,  0x1BF3,  0x2D7F,  0xA806,  0xA82C,  0xA8C4,  0xA953,
	0xA9C0,  0xAAF6,  0xABED,  0x10A3F, 0x11046, 0x11070, 0x1107F, 0x110B9,
	0x11133, 0x11134, 0x111C0, 0x11235, 0x112EA, 0x1134D, 0x11442, 0x114C2,
	0x115BF, 0x1163F, 0x116B6, 0x1172B, 0x11839, 0x1193D, 0x1193E, 0x119E0,
	0x11A34, 0x11A47, 0x11A99, 0x11C3F, 0x11D44, 0x11D45, 0x11D97,
};

static bool
InRanges(const CpRange *r, int n, pg_wchar c)
{
	return DocmodelUnicodeRangeFind(r, sizeof(CpRange), n, c) >= 0;
}

static bool
IsVirama(pg_wchar c)
{
	int i;

	for (i = 0; i < lengthof(Viramas); i++)
		if (Viramas[i] == c)
			return true;
	return false;
}

static bool
IsGreek(pg_wchar c)
{
	return (c >= 0x0370 && c <= 0x03FF && !(c >= 0x03E2 && c <= 0x03EF)) ||
		   (c >= 0x1F00 && c <= 0x1FFF);
}

static bool
IsHebrew(pg_wchar c)
{
	return (c >= 0x0591 && c <= 0x05F4) || (c >= 0xFB1D && c <= 0xFB4F);
}

/* Hiragana, Katakana or Han (KATAKANA MIDDLE DOT's context). */
static bool
IsHiraganaKatakanaHan(pg_wchar c)
{
	return (c >= 0x3041 && c <= 0x309F) || (c >= 0x1B000 && c <= 0x1B11F) ||
		   (c >= 0x30A0 && c <= 0x30FF && c != 0x30FB) ||
		   (c >= 0x31F0 && c <= 0x31FF) || (c >= 0x32D0 && c <= 0x32FE) ||
		   (c >= 0x3300 && c <= 0x3357) || (c >= 0xFF66 && c <= 0xFF9D) ||
		   (c >= 0x2E80 && c <= 0x2FD5) || c == 0x3005 || c == 0x3007 ||
		   (c >= 0x3021 && c <= 0x3029) || (c >= 0x3038 && c <= 0x303B) ||
		   (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) ||
		   (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x3134F);
}

/*
 * ZERO WIDTH NON-JOINER at cp[i] between joining letters (RFC 5892 A.1):
 * (Joining_Type L or D) (T)* ZWNJ (T)* (R or D).
 */
static bool
IdnaZwnjJoins(const pg_wchar *cp, int n, int i)
{
	int j = i - 1;
	int k = i + 1;
	char t;

	while (j >= 0 && DocmodelUnicodeJoiningType(cp[j]) == 'T')
		j--;
	if (j < 0)
		return false;
	t = DocmodelUnicodeJoiningType(cp[j]);
	if (t != 'L' && t != 'D')
		return false;
	while (k < n && DocmodelUnicodeJoiningType(cp[k]) == 'T')
		k++;
	if (k >= n)
		return false;
	t = DocmodelUnicodeJoiningType(cp[k]);
	return t == 'R' || t == 'D';
}

bool
DocmodelIdnaLabelValid(const pg_wchar *cp, int n)
{
	bool arabic_indic = false;
	bool extended = false;
	int i;

	if (n == 0 || InRanges(Marks, lengthof(Marks), cp[0]))
		return false;
	if (n >= 4 && cp[2] == '-' && cp[3] == '-')
		return false;
	for (i = 0; i < n; i++)
	{
		pg_wchar c = cp[i];

		switch (c)
		{
			case 0x0640: /* the exceptions DISALLOWED (RFC 5892 2.6) */
			case 0x07FA:
			case 0x302E:
			case 0x302F:
			case 0x3031:
			case 0x3032:
			case 0x3033:
			case 0x3034:
			case 0x3035:
			case 0x303B:
				return false;
			case 0x00B7: /* MIDDLE DOT: between two "l" */
				if (i == 0 || i == n - 1 || cp[i - 1] != 'l' ||
					cp[i + 1] != 'l')
					return false;
				break;
			case 0x0375: /* Greek KERAIA: before a Greek letter */
				if (i == n - 1 || !IsGreek(cp[i + 1]))
					return false;
				break;
			case 0x05F3: /* Hebrew GERESH, GERSHAYIM: after a Hebrew letter */
			case 0x05F4:
				if (i == 0 || !IsHebrew(cp[i - 1]))
					return false;
				break;
			case 0x200D: /* ZERO WIDTH JOINER: after a virama */
				if (i == 0 || !IsVirama(cp[i - 1]))
					return false;
				break;
			case 0x200C: /* ZERO WIDTH NON-JOINER */
				if (!(i > 0 && IsVirama(cp[i - 1])) && !IdnaZwnjJoins(cp, n, i))
					return false;
				break;
			case 0x30FB: /* KATAKANA MIDDLE DOT: with Hiragana, Katakana or Han */
			{
				int j;

				for (j = 0; j < n; j++)
					if (IsHiraganaKatakanaHan(cp[j]))
						break;
				if (j == n)
					return false;
				break;
			}
			default:
				if (c >= 0x0660 && c <= 0x0669)
					arabic_indic = true;
				else if (c >= 0x06F0 && c <= 0x06F9)
					extended = true;
				break;
		}
	}
	/* Arabic-Indic digits and their extended forms do not mix */
	return !(arabic_indic && extended);
}

/* RFC 3492's parameters for IDNA. */
#define PUNY_BASE 36
#define PUNY_TMIN 1
#define PUNY_TMAX 26
#define PUNY_SKEW 38
#define PUNY_DAMP 700
#define PUNY_INITIAL_BIAS 72
#define PUNY_INITIAL_N 0x80
#define PUNY_MAXINT PG_UINT32_MAX

/* An A-label has at most 63 octets: "xn--" and 59 of Punycode. */
#define IDNA_LABEL_MAX 63
#define IDNA_NAME_MAX 253
#define IDNA_CP_MAX (IDNA_LABEL_MAX - 4)

static uint32
PunyAdapt(uint32 delta, uint32 numpoints, bool first)
{
	uint32 k = 0;

	delta = first ? delta / PUNY_DAMP : delta / 2;
	delta += delta / numpoints;
	while (delta > ((PUNY_BASE - PUNY_TMIN) * PUNY_TMAX) / 2)
	{
		delta /= PUNY_BASE - PUNY_TMIN;
		k += PUNY_BASE;
	}
	return k + (PUNY_BASE - PUNY_TMIN + 1) * delta / (delta + PUNY_SKEW);
}

static uint32
PunyThreshold(uint32 k, uint32 bias)
{
	if (k <= bias)
		return PUNY_TMIN;
	if (k >= bias + PUNY_TMAX)
		return PUNY_TMAX;
	return k - bias;
}

/* The value of a Punycode digit (either case), or -1. */
static int
PunyDigitValue(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0' + 26;
	if (c >= 'a' && c <= 'z')
		return c - 'a';
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	return -1;
}

/*
 * Decode the Punycode s[0..len) (what follows "xn--") into out[0..max):
 * false if it is not Punycode, overflows, decodes to a basic, surrogate or
 * out of range code point, or to more than max code points.
 */
bool
DocmodelIdnaPunycodeDecode(const char *s, int len, pg_wchar *out, int max,
						   int *nout)
{
	uint32 n = PUNY_INITIAL_N;
	uint32 i = 0;
	uint32 bias = PUNY_INITIAL_BIAS;
	int b = -1;
	int o = 0;
	int in;
	int j;

	/* the basic code points: those before the last delimiter, if any */
	for (j = 0; j < len; j++)
		if (s[j] == '-')
			b = j;
	if (b > max)
		return false;
	for (j = 0; j < b; j++)
	{
		if ((unsigned char) s[j] >= 0x80)
			return false;
		out[o++] = (unsigned char) s[j];
	}
	for (in = b + 1; in < len;)
	{
		uint32 oldi = i;
		uint32 w = 1;
		uint32 k;

		for (k = PUNY_BASE;; k += PUNY_BASE)
		{
			int digit;
			uint32 t;

			if (in >= len || (digit = PunyDigitValue(s[in++])) < 0)
				return false;
			if ((uint32) digit > (PUNY_MAXINT - i) / w)
				return false;
			i += digit * w;
			t = PunyThreshold(k, bias);
			if ((uint32) digit < t)
				break;
			if (w > PUNY_MAXINT / (PUNY_BASE - t))
				return false;
			w *= PUNY_BASE - t;
		}
		bias = PunyAdapt(i - oldi, o + 1, oldi == 0);
		if (i / (o + 1) > PUNY_MAXINT - n)
			return false;
		n += i / (o + 1);
		i %= o + 1;
		if (n < 0x80 || n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF) ||
			o >= max)
			return false;
		memmove(out + i + 1, out + i, (o - i) * sizeof(pg_wchar));
		out[i++] = n;
		o++;
	}
	*nout = o;
	return true;
}

/*
 * Encode cp[0..n) as Punycode (lower case digits) into out[0..max): its
 * length, or -1 if longer than max or on overflow.
 */
int
DocmodelIdnaPunycodeEncode(const pg_wchar *cp, int n, char *out, int max)
{
	uint32 c = PUNY_INITIAL_N;
	uint32 delta = 0;
	uint32 bias = PUNY_INITIAL_BIAS;
	uint32 h;
	uint32 b = 0;
	int o = 0;
	int j;

	for (j = 0; j < n; j++)
		if (cp[j] < 0x80)
		{
			if (o >= max)
				return -1;
			out[o++] = (char) cp[j];
			b++;
		}
	h = b;
	if (b > 0)
	{
		if (o >= max)
			return -1;
		out[o++] = '-';
	}
	while (h < (uint32) n)
	{
		uint32 m = PG_UINT32_MAX;

		for (j = 0; j < n; j++)
			if (cp[j] >= c && cp[j] < m)
				m = cp[j];
		if ((m - c) > (PUNY_MAXINT - delta) / (h + 1))
			return -1;
		delta += (m - c) * (h + 1);
		c = m;
		for (j = 0; j < n; j++)
		{
			if (cp[j] < c && ++delta == 0)
				return -1;
			if (cp[j] == c)
			{
				uint32 q = delta;
				uint32 k;

				for (k = PUNY_BASE;; k += PUNY_BASE)
				{
					uint32 t = PunyThreshold(k, bias);
					uint32 d;

					if (q < t)
						break;
					d = t + (q - t) % (PUNY_BASE - t);
					if (o >= max)
						return -1;
					out[o++] = d < 26 ? 'a' + d : '0' + d - 26;
					q = (q - t) / (PUNY_BASE - t);
				}
				if (o >= max)
					return -1;
				out[o++] = q < 26 ? 'a' + q : '0' + q - 26;
				bias = PunyAdapt(delta, h + 1, h == b);
				delta = 0;
				h++;
			}
		}
		delta++;
		c++;
	}
	return o;
}

/*
 * The length in bytes of an IDNA label separator at s (the full stop and
 * its ideographic, fullwidth and halfwidth forms, RFC 3490 3.1), or 0.
 */
static int
IdnaSeparator(const char *s, int len, bool idn)
{
	const unsigned char *u = (const unsigned char *) s;

	if (len >= 1 && s[0] == '.')
		return 1;
	if (!idn || len < 3)
		return 0;
	/* U+3002, U+FF0E, U+FF61 */
	if ((u[0] == 0xE3 && u[1] == 0x80 && u[2] == 0x82) ||
		(u[0] == 0xEF && u[1] == 0xBC && u[2] == 0x8E) ||
		(u[0] == 0xEF && u[1] == 0xBD && u[2] == 0xA1))
		return 3;
	return 0;
}

static bool
InGeneralCategory(const char *gc, pg_wchar c)
{
	const UnicodeRange *r;
	int n;

	if (!DocmodelUnicodePropertyRanges(UNICODE_GC, gc, false, &r, &n))
		return false;
	return DocmodelUnicodeRangeFind(r, sizeof(UnicodeRange), n, c) >= 0;
}

/*
 * Whether a code point an A-label decodes to may be in a U-label: ASCII
 * letters, digits and hyphen; letters (Ll, Lo, Lm), marks (Mn, Mc) and
 * decimal digits; the exceptions PVALID and the code points of the
 * contextual rules (RFC 5892 2.6, appendix A).
 */
static bool
IdnaCodePointAllowed(pg_wchar c)
{
	if (c < 0x80)
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '-';
	switch (c)
	{
		case 0x00DF:
		case 0x03C2:
		case 0x06FD:
		case 0x06FE:
		case 0x0F0B:
		case 0x3007:
		case 0x00B7:
		case 0x0375:
		case 0x05F3:
		case 0x05F4:
		case 0x30FB:
		case 0x200C:
		case 0x200D:
			return true;
		default:
			break;
	}
	return InGeneralCategory("Ll", c) || InGeneralCategory("Lo", c) ||
		   InGeneralCategory("Lm", c) || InGeneralCategory("Mn", c) ||
		   InGeneralCategory("Mc", c) || InGeneralCategory("Nd", c);
}

/*
 * The code points of the label s[0..len) into cp[0..IDNA_CP_MAX] (an
 * A-label decoded), -1 if they do not fit or the A-label does not decode.
 * *alabel tells whether it was an A-label.
 */
static int
IdnaLabelCodePoints(const char *s, int len, bool ascii, pg_wchar *cp,
					bool *alabel)
{
	int n;

	*alabel = false;
	if (ascii && len >= 4 && pg_strncasecmp(s, "xn--", 4) == 0)
	{
		*alabel = true;
		if (!DocmodelIdnaPunycodeDecode(s + 4, len - 4, cp, IDNA_CP_MAX, &n))
			return -1;
		return n;
	}
	if (ascii)
	{
		if (len > IDNA_LABEL_MAX)
			return -1;
		for (n = 0; n < len; n++)
			cp[n] = (unsigned char) s[n];
		return n;
	}
	/* a code point has at most 4 bytes; pg_mb2wchar_with_len writes n + 1 */
	if (len > 4 * IDNA_CP_MAX)
		return -1;
	n = pg_mb2wchar_with_len(s, cp, len);
	return n > IDNA_CP_MAX ? -1 : n;
}

/* Whether the label cp[0..n) holds a right-to-left character. */
static bool
IdnaLabelRtl(const pg_wchar *cp, int n)
{
	int i;

	for (i = 0; i < n; i++)
	{
		UnicodeBidiClass b = DocmodelUnicodeBidiClass(cp[i]);

		if (b == UNICODE_BIDI_R || b == UNICODE_BIDI_AL || b == UNICODE_BIDI_AN)
			return true;
	}
	return false;
}

/* RFC 5893's Bidi rule on the label cp[0..n) of a Bidi domain name. */
static bool
IdnaBidiRule(const pg_wchar *cp, int n)
{
	UnicodeBidiClass first = DocmodelUnicodeBidiClass(cp[0]);
	bool rtl = first == UNICODE_BIDI_R || first == UNICODE_BIDI_AL;
	bool en = false;
	bool an = false;
	int last = n - 1;
	int i;

	if (!rtl && first != UNICODE_BIDI_L)
		return false;
	for (i = 0; i < n; i++)
	{
		UnicodeBidiClass b = DocmodelUnicodeBidiClass(cp[i]);

		switch (b)
		{
			case UNICODE_BIDI_R:
			case UNICODE_BIDI_AL:
				if (!rtl)
					return false;
				break;
			case UNICODE_BIDI_AN:
				if (!rtl)
					return false;
				an = true;
				break;
			case UNICODE_BIDI_L:
				if (rtl)
					return false;
				break;
			case UNICODE_BIDI_EN:
				en = true;
				break;
			case UNICODE_BIDI_ES:
			case UNICODE_BIDI_CS:
			case UNICODE_BIDI_ET:
			case UNICODE_BIDI_ON:
			case UNICODE_BIDI_BN:
			case UNICODE_BIDI_NSM:
				break;
			default:
				return false;
		}
	}
	if (rtl && en && an)
		return false;
	while (last > 0 && DocmodelUnicodeBidiClass(cp[last]) == UNICODE_BIDI_NSM)
		last--;
	switch (DocmodelUnicodeBidiClass(cp[last]))
	{
		case UNICODE_BIDI_R:
		case UNICODE_BIDI_AL:
		case UNICODE_BIDI_AN:
			return rtl;
		case UNICODE_BIDI_EN:
			return true;
		case UNICODE_BIDI_L:
			return !rtl;
		default:
			return false;
	}
}

/*
 * The end of the label starting at s[i] (its bytes before a separator or the
 * end); false if it holds a byte a label may not (with idn, non-ASCII bytes
 * are allowed: *ascii tells whether there were none).
 */
static bool
IdnaLabelEnd(const char *s, int len, int i, bool idn, int *end, int *sep,
			 bool *ascii)
{
	*ascii = true;
	*sep = 0;
	while (i < len && (*sep = IdnaSeparator(s + i, len - i, idn)) == 0)
	{
		char c = s[i];

		if ((unsigned char) c >= 0x80 && idn)
			*ascii = false;
		else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				   (c >= '0' && c <= '9') || c == '-'))
			return false;
		i++;
	}
	*end = i;
	return true;
}

/*
 * Tell whether s[0..len) is a host name: RFC 1123's labels of letters,
 * digits and inner hyphens, 63 octets at most, 253 in all; an A-label must
 * decode to a valid U-label. With idn (idn-hostname, RFC 5890), labels may
 * also be U-labels (non-ASCII code points), measured by their A-label form,
 * and the IDNA separators count as dots.
 */
bool
DocmodelIdnaHostnameValid(const char *s, int len, bool idn)
{
	pg_wchar cp[4 * IDNA_CP_MAX + 1];
	char enc[IDNA_LABEL_MAX];
	int total = 0;
	bool bidi = false;
	int i = 0;

	if (len == 0)
		return false;
	while (i < len)
	{
		int start = i;
		int sep;
		int alen;
		bool ascii;
		bool alabel;
		int n;

		CHECK_FOR_INTERRUPTS();
		if (!IdnaLabelEnd(s, len, i, idn, &i, &sep, &ascii))
			return false;
		if (i == start || s[start] == '-' || s[i - 1] == '-')
			return false;
		alen = i - start;
		n = IdnaLabelCodePoints(s + start, i - start, ascii, cp, &alabel);
		if (n < 0)
			return false;
		if (alabel)
		{
			int j;

			/* a U-label, in its canonical form */
			for (j = 0; j < n; j++)
				if (!IdnaCodePointAllowed(cp[j]))
					return false;
			for (j = 0; j < n; j++)
				if (cp[j] >= 0x80)
					break;
			if (j == n || !DocmodelIdnaLabelValid(cp, n))
				return false;
			if (DocmodelIdnaPunycodeEncode(cp, n, enc, sizeof(enc)) !=
					alen - 4 ||
				pg_strncasecmp(enc, s + start + 4, alen - 4) != 0)
				return false;
		}
		else if (!ascii)
		{
			int e;

			/* RFC 5892's rules; its A-label form is what is measured */
			if (!DocmodelIdnaLabelValid(cp, n))
				return false;
			e = DocmodelIdnaPunycodeEncode(cp, n, enc, sizeof(enc));
			if (e < 0)
				return false;
			alen = 4 + e;
		}
		else if (alen >= 4 && s[start + 2] == '-' && s[start + 3] == '-')
			return false; /* "--" in places 3 and 4 is for A-labels */
		if (alen > IDNA_LABEL_MAX)
			return false;
		total += alen + (i < len ? 1 : 0);
		if (total > IDNA_NAME_MAX)
			return false;
		if (!bidi && (alabel || !ascii))
			bidi = IdnaLabelRtl(cp, n);
		if (i < len)
		{
			i += sep;
			if (i == len)
				return false;
		}
	}
	if (!bidi)
		return true;
	/* a Bidi domain name: every label keeps the Bidi rule */
	for (i = 0; i < len;)
	{
		int start = i;
		int sep;
		bool ascii;
		bool alabel;
		int n;

		CHECK_FOR_INTERRUPTS();
		(void) IdnaLabelEnd(s, len, i, idn, &i, &sep, &ascii);
		n = IdnaLabelCodePoints(s + start, i - start, ascii, cp, &alabel);
		if (n <= 0 || !IdnaBidiRule(cp, n))
			return false;
		i += sep;
	}
	return true;
}
