/*
 * built.c - build=built: under parser=libxml2, libxml2 builds its own
 * tree, which is then converted into ours and freed (Axiom's OM tree,
 * then the DOOM tree; variants/parser/libxml2/tree.c).  The insitu
 * parser builds every node as it reads, as under direct.
 */
#include "dom/build.h"

const char dom__build_choice[] = "built";

int dom__build_defer(int signing)
{
	(void)signing;
	return 0;
}

size_t dom__build_arena_start(size_t whole)
{
	return whole;
}

int dom__build_via_tree(void)
{
	return 1;
}
