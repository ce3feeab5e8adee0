/*
 * udentry.c - user-data lists.  A node rarely carries more than one or two
 * keys, so a list beats any table inside one node's data; what differs
 * between the userdata choices is where the lists hang.
 */
#include "dom/udentry.h"

static void release(dom_ud_entry *e)
{
	if (e->free_fn != NULL && e->data != NULL)
		e->free_fn(e->data, e->arg);
}

int dom__ud_list_set(dom_doc *doc, dom_ud_entry **head, const void *key,
		     void *data, dom_ud_free_fn free_fn, void *arg, int *added,
		     lab_err *err)
{
	dom_ud_entry **p, *e;

	*added = 0;
	for (p = head; *p != NULL; p = &(*p)->next) {
		e = *p;
		if (e->key != key)
			continue;
		release(e);
		if (data == NULL) {
			*p = e->next;
			*added = -1;
			return LAB_OK;
		}
		e->data = data;
		e->free_fn = free_fn;
		e->arg = arg;
		return LAB_OK;
	}
	if (data == NULL)
		return LAB_OK;
	e = dom__arena_alloc(&doc->arena, sizeof *e);
	if (e == NULL)
		return lab_fail(err, LAB_ENOMEM, "out of memory");
	e->key = key;
	e->data = data;
	e->free_fn = free_fn;
	e->arg = arg;
	e->next = *head;
	*head = e;
	*added = 1;
	return LAB_OK;
}

void *dom__ud_list_get(const dom_ud_entry *head, const void *key)
{
	for (; head != NULL; head = head->next)
		if (head->key == key)
			return head->data;
	return NULL;
}

void dom__ud_list_release(dom_ud_entry **head)
{
	dom_ud_entry *e;

	for (e = *head; e != NULL; e = e->next)
		release(e);
	*head = NULL;
}
