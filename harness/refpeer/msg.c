/*
 * msg.c - the reference peer's SOAP message: the Envelope's parts as
 * wss_msg_open checks them, the wsu:Ids xmlsec may resolve, and the
 * SecurityTokenReferences both WS-Security steps write.
 * Not for: signing or encryption themselves (sign.c, enc.c).
 */
#include "harness/refpeer/peer.h"

/* The IDs the sender gives (wss/ gives "base-N" too). */
const char ID_BODY[] = "Body-1", ID_TS[] = "TS-1", ID_BST[] = "X509-1",
	   ID_EK[] = "EK-1", ID_ED[] = "ED-1", ID_TO[] = "To-1";
/* The EncryptedData of the parts encrypted besides the Body's content. */
const char *const ID_PART[] = {"ED-2", "ED-3"};

int ref__nomem(lab_err *err)
{
	return lab_fail(err, LAB_ENOMEM, "out of memory");
}

int ref__is_el(const xmlNode *n, const char *ns, const char *local)
{
	return n->type == XML_ELEMENT_NODE && n->ns != NULL &&
	       xmlStrEqual(n->name, X(local)) &&
	       xmlStrEqual(n->ns->href, X(ns));
}

/* The child element (ns, local) when there is exactly one, else NULL;
 * *count says how many there were. */
xmlNodePtr ref__one_child(const xmlNode *parent, const char *ns,
			  const char *local, size_t *count)
{
	xmlNodePtr n, found = NULL;

	*count = 0;
	for (n = parent != NULL ? parent->children : NULL; n != NULL;
	     n = n->next)
		if (ref__is_el(n, ns, local)) {
			found = n;
			(*count)++;
		}
	return *count == 1 ? found : NULL;
}

/* A namespace with a prefix for uri in scope at el, declared there as
 * prefix when there is none. */
xmlNsPtr ref__ns_for(ref_msg *m, xmlNodePtr el, const char *uri,
		     const char *prefix)
{
	xmlNsPtr ns = xmlSearchNsByHref(m->doc, el, X(uri));

	return ns != NULL && ns->prefix != NULL
		       ? ns
		       : xmlNewNs(el, X(uri), X(prefix));
}

/* What wss_msg_open checks: a SOAP 1.1 or 1.2 Envelope (else malformed
 * input, as there) with one Body, at most one Header before it and one
 * Security in it (else `code`); `create` adds the missing Header and
 * Security (the sender). */
int ref__msg_open(xmlDocPtr doc, int create, int code, ref_msg *m,
		  lab_err *err)
{
	size_t count;

	memset(m, 0, sizeof *m);
	m->doc = doc;
	m->envelope = xmlDocGetRootElement(doc);
	m->soap = m->envelope != NULL &&
			  ref__is_el(m->envelope, WSS_NS_SOAP12, "Envelope")
		  ? WSS_NS_SOAP12
		  : WSS_NS_SOAP;
	if (m->envelope == NULL ||
	    !ref__is_el(m->envelope, m->soap, "Envelope"))
		return lab_fail(err, LAB_EMALFORMED,
				"not a SOAP 1.1 or 1.2 envelope");
	m->body = ref__one_child(m->envelope, m->soap, "Body", &count);
	if (m->body == NULL)
		return lab_fail(err, code, "the Envelope has %zu Bodies",
				count);
	m->header = ref__one_child(m->envelope, m->soap, "Header", &count);
	if (count > 1)
		return lab_fail(err, code, "the Envelope has %zu Headers",
				count);
	m->security = ref__one_child(m->header, WSS_NS_WSSE, "Security",
				     &count);
	if (count > 1)
		return lab_fail(err, code, "the Header has %zu Security headers",
				count);
	if (!create || m->security != NULL)
		return LAB_OK;
	if (m->header == NULL) {
		m->header = xmlNewDocNode(doc, m->envelope->ns, X("Header"),
					  NULL);
		if (m->header == NULL)
			return ref__nomem(err);
		xmlAddPrevSibling(m->body, m->header);
	}
	m->security = xmlNewChild(m->header, NULL, X("Security"), NULL);
	if (m->security == NULL)
		return ref__nomem(err);
	xmlSetNs(m->security, ref__ns_for(m, m->security, WSS_NS_WSSE, "wsse"));
	if (m->security->ns == NULL ||
	    xmlNewNsProp(m->security, m->envelope->ns, X("mustUnderstand"),
			 X("1")) == NULL)
		return ref__nomem(err);
	return LAB_OK;
}

/*
 * The wsu:Id of el copied into id and registered with xmlAddID, the only
 * IDs xmlsec resolves: registering exactly the Body and the Timestamp is
 * what keeps a reference from reaching any other element.  `fresh` NULL:
 * el must carry one (the receiver); else el gets `fresh` when it has none.
 */
int ref__wsu_id(ref_msg *m, xmlNodePtr el, const char *fresh, int code,
		char *id, size_t cap, lab_err *err)
{
	xmlAttrPtr a = xmlHasNsProp(el, X("Id"), X(WSS_NS_WSU));
	xmlChar *v = NULL;
	int rc = LAB_OK;

	if (a == NULL && fresh == NULL)
		return lab_fail(err, code, "%s has no wsu:Id", el->name);
	if (a == NULL) {
		xmlNsPtr wsu = ref__ns_for(m, el, WSS_NS_WSU, "wsu");

		a = wsu != NULL ? xmlNewNsProp(el, wsu, X("Id"), X(fresh))
				: NULL;
		if (a == NULL)
			return ref__nomem(err);
	}
	v = xmlNodeListGetString(m->doc, a->children, 1);
	if (v == NULL || v[0] == '\0' || (size_t)xmlStrlen(v) >= cap) {
		rc = lab_fail(err, code, "%s has an empty or too long wsu:Id",
			      el->name);
		goto out;
	}
	memcpy(id, v, (size_t)xmlStrlen(v) + 1);
	if (xmlGetID(m->doc, v) == a)
		goto out;
	if (xmlGetID(m->doc, v) != NULL)
		rc = lab_fail(err, code, "ID '%s' is not unique", id);
	else if (xmlAddID(NULL, m->doc, v, a) == NULL)
		rc = ref__nomem(err);
out:
	xmlFree(v);
	return rc;
}

/* Appends a wsse:SecurityTokenReference to parent holding `local`
 * (Reference or KeyIdentifier, with text or none); wsse is declared on it
 * when not in scope (an EncryptedData template is not in the document
 * yet). */
xmlNodePtr ref__add_str(ref_msg *m, xmlNodePtr parent, const char *local,
			const xmlChar *text)
{
	xmlNodePtr str = xmlNewChild(parent, NULL,
				     X("SecurityTokenReference"), NULL);
	xmlNsPtr wsse = str != NULL ? ref__ns_for(m, str, WSS_NS_WSSE, "wsse")
				    : NULL;

	if (wsse == NULL)
		return NULL;
	xmlSetNs(str, wsse);
	return xmlNewTextChild(str, wsse, X(local), text);
}

/* A wsse:Reference to "#id" of the given ValueType under parent. */
int ref__add_token_ref(ref_msg *m, xmlNodePtr parent, const char *id,
		       const char *value_type, lab_err *err)
{
	char uri[64];
	xmlNodePtr r = ref__add_str(m, parent, "Reference", NULL);

	snprintf(uri, sizeof uri, "#%s", id);
	if (r == NULL || xmlNewProp(r, X("URI"), X(uri)) == NULL ||
	    xmlNewProp(r, X("ValueType"), X(value_type)) == NULL)
		return ref__nomem(err);
	return LAB_OK;
}
