/*
 * quakes.h - soapcpp2's input (gSOAP's header language, not C for the
 * compiler): the quakes dataset's records (datasets/gen.c) as a service's
 * schema describes them, and the WS-Security header, imported from
 * Debian's /usr/share/gsoap/import.  The bench build runs soapcpp2 on it
 * into build/<variant>/gen/ (mk/gsoap.mk); nothing generated is
 * committed.
 *
 * The binding is soapcpp2's own from the schema's types: xsd:decimal is a
 * string (wsdl2h's default, which keeps the digits as sent), xsd:int an
 * int.  The times are xsd:dateTime kept as text: gSOAP's default binding,
 * time_t, drops the records' milliseconds.
 *
 * Not for: any other dataset shape.
 */
//gsoapopt c
//gsoap q schema namespace: urn:example:seismic:quakes:v1
//gsoap q schema elementForm: qualified
//gsoap q schema attributeForm: unqualified

#import "wsse.h"

typedef char *xsd__decimal;
typedef char *xsd__dateTime_;

struct q__quake {
	@char *id;
	@xsd__dateTime_ time;
	@xsd__decimal lat;
	@xsd__decimal lon;
	@xsd__decimal depth;
	@xsd__decimal magnitude;
	char *region 1;
};

struct q__results {
	@int count;
	@char *source;
	@xsd__dateTime_ generated;
	$int __size;
	struct q__quake *quake;
};


//gsoap q service name: quakes
//gsoap q service namespace: urn:example:seismic:quakes:v1
int q__getEventsResponse(struct q__results *results, void);
