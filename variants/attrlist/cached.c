/*
 * cached.c - attrlist=cached: dom_attributes() is a view of the element's
 * own attribute array; nothing is allocated or copied.  The view is valid
 * until the element's attributes change.
 */
#include "dom/attrlist.h"

const char dom__attrlist_choice[] = "cached";

int dom__attrlist_get(const dom_element *el, dom_attr_list *out,
		      lab_err *err)
{
	(void)err;
	out->items = el->attrs.items;
	out->count = el->attrs.count;
	out->owned = NULL;
	return LAB_OK;
}

void dom__attrlist_release(const dom_element *el, dom_attr_list *list)
{
	(void)el;
	(void)list;
}
