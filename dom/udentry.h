/*
 * udentry.h - one piece of user data, and the list operations both
 * userdata choices build their tables from.  Not an axis choice itself.
 */
#ifndef DOM_UDENTRY_H
#define DOM_UDENTRY_H

#include "dom/internal.h"

typedef struct dom_ud_entry dom_ud_entry;

struct dom_ud_entry {
	dom_ud_entry *next;
	const void *key;
	void *data;
	dom_ud_free_fn free_fn;
	void *arg;
};

/*
 * Sets key in the list at *head: replaces (releasing the old value),
 * removes when data is NULL, or prepends an entry made in doc's arena.
 * *added is +1, 0 or -1: how the number of entries changed.
 */
int dom__ud_list_set(dom_doc *doc, dom_ud_entry **head, const void *key,
		     void *data, dom_ud_free_fn free_fn, void *arg, int *added,
		     lab_err *err);
void *dom__ud_list_get(const dom_ud_entry *head, const void *key);
/* Releases every value in the list and empties it. */
void dom__ud_list_release(dom_ud_entry **head);

#endif
