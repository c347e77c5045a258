/*-------------------------------------------------------------------------
 *
 * migrate/versions.c
 *	  The versions documents are read and written at (README, "Schema
 *	  versions and migrations", "Both ways"): the setting docmodel.versions,
 *	  a call's own version (get(..., as_version)), the SQL functions
 *	  get(coll, key, as_version) and get_multi(coll, keys, as_version), and
 *	  _doc_type / _doc_version, a document's type and version fields.
 *
 *	  Shared state: the parsed setting (its GUC "extra", one malloc'd
 *	  block) and the running call's version, both backend-local.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/guc.h"

#include "utils/builtins.h"

#include "compat.h"
#include "collection/config.h"
#include "collection/fields.h"
#include "collection/version.h"
#include "migrate/versions.h"

PG_FUNCTION_INFO_V1(kv_get_as);
PG_FUNCTION_INFO_V1(kv_get_multi_as);
PG_FUNCTION_INFO_V1(subdoc_lookup_in_as);
PG_FUNCTION_INFO_V1(migration_doc_type);
PG_FUNCTION_INFO_V1(migration_doc_version);

/* the plain readers (collection/kv.c) */
extern Datum kv_get(PG_FUNCTION_ARGS);
extern Datum kv_get_multi(PG_FUNCTION_ARGS);
extern Datum subdoc_lookup_in(PG_FUNCTION_ARGS);

/*
 * docmodel.versions: the version of each type this session reads and
 * writes ({"user": "2.0"}), parsed by its check hook into one malloc'd
 * block (its "extra").
 */
#define SESSION_MAX_TYPES 64
#define SESSION_VERSION_MAX 64
typedef struct SessionVersions
{
	int n;
	struct
	{
		char type[256];
		char version[SESSION_VERSION_MAX];
	} e[SESSION_MAX_TYPES];
} SessionVersions;

static char *docmodel_versions = NULL;
static SessionVersions *session_versions = NULL;
/* a call's own version (get(..., as_version)), over the session's */
static const char *read_as_version = NULL;

/*
 * The version the session (docmodel.versions), or the running call
 * (read_as_version), reads type at; NULL: the current one.
 */
const char *
DocmodelSessionVersion(const char *type, int len)
{
	int i;

	if (read_as_version != NULL)
		return read_as_version;
	if (session_versions == NULL)
		return NULL;
	for (i = 0; i < session_versions->n; i++)
		if (strncmp(session_versions->e[i].type, type, len) == 0 &&
			session_versions->e[i].type[len] == '\0')
			return session_versions->e[i].version;
	return NULL;
}

/*
 * docmodel.versions' check hook: a JSON object of document types (1 to 250
 * bytes) and their versions (strings or numbers, valid versions), at most
 * SESSION_MAX_TYPES; parsed into the extra.
 */
static bool
ParseJsonString(const char **pp, char *out, int outlen)
{
	const char *p = *pp;
	int n = 0;

	if (*p != '"')
		return false;
	p++;
	while (*p && *p != '"')
	{
		char c = *p++;

		if (c == '\\')
		{
			c = *p++;
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c != '"' && c != '\\' && c != '/')
				return false;
		}
		else if ((unsigned char) c < 0x20)
			return false;
		if (n >= outlen - 1)
			return false;
		out[n++] = c;
	}
	if (*p != '"')
		return false;
	out[n] = '\0';
	*pp = p + 1;
	return true;
}

static bool
CheckVersions(char **newval, void **extra, GucSource source)
{
	SessionVersions *sv;
	const char *p = *newval;

	sv = DocmodelGucMalloc(sizeof(SessionVersions));
	if (sv == NULL)
		return false;
	sv->n = 0;
	while (p && (*p == ' ' || *p == '\t' || *p == '\n'))
		p++;
	if (p == NULL || *p == '\0')
	{
		*extra = sv;
		return true;
	}
#define SKIPWS()                                                \
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') \
	p++
	if (*p != '{')
		goto bad;
	p++;
	SKIPWS();
	while (*p != '}')
	{
		char type[256];
		char ver[SESSION_VERSION_MAX];

		if (sv->n >= SESSION_MAX_TYPES)
		{
			GUC_check_errdetail("At most %d types.", SESSION_MAX_TYPES);
			DocmodelGucFree(sv);
			return false;
		}
		if (!ParseJsonString(&p, type, 251) || type[0] == '\0')
			goto bad;
		SKIPWS();
		if (*p++ != ':')
			goto bad;
		SKIPWS();
		if (*p == '"')
		{
			if (!ParseJsonString(&p, ver, sizeof(ver)))
				goto badver;
		}
		else
		{
			int n = 0;

			while ((*p >= '0' && *p <= '9') || *p == '.')
			{
				if (n >= (int) sizeof(ver) - 1)
					goto badver;
				ver[n++] = *p++;
			}
			ver[n] = '\0';
		}
		if (ver[0] == '\0' || DocmodelVersionFromCString(ver, false) == NULL)
		{
			GUC_check_errmsg("invalid version \"%s\" of type \"%s\" in "
							 "docmodel.versions",
							 ver, type);
			DocmodelGucFree(sv);
			return false;
		}
		strlcpy(sv->e[sv->n].type, type, sizeof(sv->e[sv->n].type));
		strlcpy(sv->e[sv->n].version, ver, SESSION_VERSION_MAX);
		sv->n++;
		SKIPWS();
		if (*p == ',')
		{
			p++;
			SKIPWS();
			continue;
		}
		if (*p != '}')
			goto bad;
	}
	p++;
	SKIPWS();
	if (*p != '\0')
		goto bad;
	*extra = sv;
	return true;
badver:
	GUC_check_errdetail("A version is a string or number such as \"2.0\".");
	DocmodelGucFree(sv);
	return false;
bad:
	GUC_check_errdetail("docmodel.versions is a JSON object of document types "
						"and versions, such as {\"user\": \"2.0\"}.");
	DocmodelGucFree(sv);
	return false;
#undef SKIPWS
}

static void
AssignVersions(const char *newval, void *extra)
{
	session_versions = (SessionVersions *) extra;
	if (session_versions != NULL && session_versions->n == 0)
		session_versions = NULL;
}

/* See versions.h. */
void
DocmodelVersionsInit(void)
{
	DefineCustomStringVariable(
		"docmodel.versions",
		"The schema version of each document type this session reads and "
		"writes.",
		"A JSON object such as {\"user\": \"2.0\"}: get, get_multi, lookup_in "
		"and mutate_in give documents of those types at those versions, and "
		"writes without a version field are taken to be at them.",
		&docmodel_versions, "", PGC_USERSET, 0, CheckVersions, AssignVersions,
		NULL);
}

/* See versions.h. */
const char *
DocmodelReadAsSet(const char *version)
{
	const char *saved = read_as_version;

	read_as_version = version;
	return saved;
}

/*
 * get(coll, key, as_version) and get_multi(coll, keys, as_version): the
 * same, at as_version (NULL: as without it).
 */
static Datum
KvReadAs(PG_FUNCTION_ARGS, PGFunction fn, int verarg)
{
	const char *version =
		PG_ARGISNULL(verarg)
			? NULL
			: DocmodelVersionToCString(PG_GETARG_DOCVERSION_P(verarg));
	const char *saved = DocmodelReadAsSet(version);
	Datum d;

	PG_TRY();
	{
		d = fn(fcinfo);
	}
	PG_FINALLY();
	{
		DocmodelReadAsSet(saved);
	}
	PG_END_TRY();
	return d;
}

Datum
kv_get_as(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	return KvReadAs(fcinfo, kv_get, 2);
}

Datum
kv_get_multi_as(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
	{
		InitMaterializedSRF(fcinfo, 0);
		return (Datum) 0;
	}
	return KvReadAs(fcinfo, kv_get_multi, 2);
}

/* lookup_in(coll, key, specs, as_version): its paths name that version's shape */
Datum
subdoc_lookup_in_as(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	return KvReadAs(fcinfo, subdoc_lookup_in, 3);
}

/*
 * Find the fields of _doc_type's and _doc_version's document (argument 0;
 * in the fields of collection argument 1 when given, else of any meta
 * style); false when there is no document or no type field (an xattrs
 * body carries none).
 */
static bool
ArgDocFields(FunctionCallInfo fcinfo, DocFields *f)
{
	const DocmodelCollection *cfg = NULL;
	Jsonb *doc;

	if (PG_ARGISNULL(0))
		return false;
	if (PG_NARGS() > 1 && !PG_ARGISNULL(1))
		cfg = DocmodelCollectionOf(PG_GETARG_OID(1));
	if (cfg && cfg->xattrs)
		return false;
	doc = PG_GETARG_JSONB_P(0);
	return cfg ? DocmodelFieldsFindIn(doc, cfg->fs, f)
			   : DocmodelFieldsFind(doc, DOC_META_AUTO, f);
}

/* _doc_type(doc[, coll]) -> text: the type field, whichever meta style
 * (in coll's fields when given) */
Datum
migration_doc_type(PG_FUNCTION_ARGS)
{
	DocFields f;

	if (!ArgDocFields(fcinfo, &f))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text_with_len(f.type, f.typelen));
}

/* _doc_version(doc[, coll]) -> version: the schema field (22P02 when bad) */
Datum
migration_doc_version(PG_FUNCTION_ARGS)
{
	DocFields f;

	if (!ArgDocFields(fcinfo, &f) || !f.has_version)
		PG_RETURN_NULL();
	PG_RETURN_DOCVERSION_P(DocmodelFieldsParseVersion(&f, NULL));
}
