/*-------------------------------------------------------------------------
 *
 * jsonschema/formats.h
 *	  The formats JSON Schema's "format" asserts (date, time, email, hostname,
 *	  ipv4/6, uri, iri, uuid, duration, json-pointer, uri-template, regex...),
 *	  checked on a string (formats.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef DOCMODEL_JSONSCHEMA_FORMATS_H
#define DOCMODEL_JSONSCHEMA_FORMATS_H

/* Formats asserted (others are annotations). */
typedef enum VFormat
{
	F_NONE,
	F_DATE_TIME,
	F_DATE,
	F_TIME,
	F_EMAIL,
	F_UUID,
	F_IPV4,
	F_IPV6,
	F_URI,
	F_HOSTNAME,
	F_DURATION,
	F_IDN_EMAIL,
	F_IDN_HOSTNAME,
	F_URI_REFERENCE,
	F_IRI,
	F_IRI_REFERENCE,
	F_URI_TEMPLATE,
	F_JSON_POINTER,
	F_RELATIVE_JSON_POINTER,
	F_REGEX
} VFormat;

/* The name of each format, by VFormat (NULL for F_NONE). */
extern const char *const DocmodelSchemaFormatNames[F_REGEX + 1];

/* Tell whether s (len bytes) is a valid f. */
extern bool DocmodelSchemaFormatValid(VFormat f, const char *s, int len);

#endif /* DOCMODEL_JSONSCHEMA_FORMATS_H */
