// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>
#include "dict.h"
#include "flame_tree.h"
#include "json.h"
#include "util.h"

/* longer names are cut: a frame is a function, a state, a path */
#define NAME_MAX_LEN 1024

struct flame *flame__new(void)
{
	struct flame *f = xcalloc(1, sizeof(*f));

	f->cap = 64;
	f->nodes = xcalloc(f->cap, sizeof(*f->nodes));
	f->nodes[0] = (struct flame_node){ .parent = FLAME_NONE, .first_child = FLAME_NONE,
					   .next_sibling = FLAME_NONE, .kind = FLAME_ROOT, .name = "all" };
	f->n = 1;
	f->children = dict__new();
	f->names = dict__new();
	return f;
}

void flame__free(struct flame *f)
{
	if (!f)
		return;
	free(f->nodes);
	dict__free(f->children);
	dict__free(f->names);
	free(f);
}

uint64_t flame__total(const struct flame *f)
{
	return f->nodes[0].total;
}

static size_t child_key(unsigned char *key, uint32_t parent, uint32_t kind, const char *name, size_t len)
{
	if (len > NAME_MAX_LEN)
		len = NAME_MAX_LEN;
	memcpy(key, &parent, 4);
	memcpy(key + 4, &kind, 4);
	memcpy(key + 8, name, len);
	return 8 + len;
}

uint32_t flame__find_child(const struct flame *f, uint32_t parent, enum flame_kind kind, const char *name)
{
	unsigned char key[8 + NAME_MAX_LEN];
	uint32_t id = dict__find(f->children, key, child_key(key, parent, kind, name, strlen(name)));

	return id ? (uint32_t)*dict__value(f->children, id) - 1 : FLAME_NONE;
}

/* The child of parent with this kind and name, made if new. */
static uint32_t child(struct flame *f, uint32_t parent, const struct flame_frame *fr)
{
	unsigned char key[8 + NAME_MAX_LEN];
	size_t len = fr->len < NAME_MAX_LEN ? fr->len : NAME_MAX_LEN;
	uint32_t id;
	struct flame_node *n;
	char name[NAME_MAX_LEN + 1];
	int added;

	id = dict__intern(f->children, key, child_key(key, parent, fr->kind, fr->name, len), &added);
	if (!added)
		return (uint32_t)*dict__value(f->children, id) - 1;
	ARRAY_GROW(f->nodes, f->n, f->cap, 64);
	memcpy(name, fr->name, len);
	name[len] = '\0';
	n = &f->nodes[f->n];
	*n = (struct flame_node){
		.parent = parent, .first_child = FLAME_NONE, .next_sibling = f->nodes[parent].first_child,
		.depth = f->nodes[parent].depth + 1, .kind = fr->kind, .name = dict__intern_str(f->names, name),
	};
	f->nodes[parent].first_child = (uint32_t)f->n;
	if (n->depth > f->max_depth)
		f->max_depth = n->depth;
	*dict__value(f->children, id) = f->n + 1;
	return (uint32_t)f->n++;
}

void flame__add(struct flame *f, const struct flame_frame *frames, size_t n, uint64_t weight)
{
	uint32_t at = 0;

	f->nodes[0].total += weight;
	for (size_t i = 0; i < n; i++) {
		at = child(f, at, &frames[i]);
		f->nodes[at].total += weight;
	}
	f->nodes[at].self += weight;
}

static const struct flame *sort_tree;

static int by_name(const void *a, const void *b)
{
	const struct flame_node *x = &sort_tree->nodes[*(const uint32_t *)a];
	const struct flame_node *y = &sort_tree->nodes[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->kind - (int)y->kind;
}

size_t flame__children(const struct flame *f, uint32_t node, uint32_t **out)
{
	size_t n = 0;

	for (uint32_t c = f->nodes[node].first_child; c != FLAME_NONE; c = f->nodes[c].next_sibling)
		n++;
	*out = xcalloc(n ? n : 1, sizeof(**out));
	n = 0;
	for (uint32_t c = f->nodes[node].first_child; c != FLAME_NONE; c = f->nodes[c].next_sibling)
		(*out)[n++] = c;
	sort_tree = f;
	qsort(*out, n, sizeof(**out), by_name);
	return n;
}

/* The path to node, outermost first, into path[]; returns its length. */
static size_t path_of(const struct flame *f, uint32_t node, uint32_t *path)
{
	size_t n = f->nodes[node].depth;

	for (size_t i = n; i-- > 0; node = f->nodes[node].parent)
		path[i] = node;
	return n;
}

/* A name in a folded line: ';' separates frames and a newline ends the line. */
static void put_folded_name(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' || *s == '\n' || *s == '\r' ? '_' : *s, out);
}

int flame__write_folded(const struct flame *f, FILE *out)
{
	uint32_t *path = xcalloc(f->max_depth + 1, sizeof(*path));

	for (size_t i = 1; i < f->n; i++) {
		size_t n;

		if (!f->nodes[i].self)
			continue;
		n = path_of(f, (uint32_t)i, path);
		for (size_t j = 0; j < n; j++) {
			if (j)
				fputc(';', out);
			put_folded_name(out, f->nodes[path[j]].name);
		}
		fprintf(out, " %llu\n", (unsigned long long)f->nodes[i].self);
	}
	free(path);
	return ferror(out) ? -1 : 0;
}

int flame__write_speedscope(const struct flame *f, FILE *out, const char *name)
{
	/* frames are shared by (kind, name): the same function is one frame wherever it is */
	struct dict *frames = dict__new();
	uint32_t *index = xcalloc(f->n, sizeof(*index)), *path = xcalloc(f->max_depth + 1, sizeof(*path));
	int first = 1;

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"tract\",\"name\":", out);
	json_string(out, name, strlen(name));
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", out);
	for (size_t i = 1; i < f->n; i++) {
		unsigned char key[4 + NAME_MAX_LEN + 1];
		uint32_t kind = f->nodes[i].kind;
		size_t len = strlen(f->nodes[i].name);
		int added;
		uint32_t id;

		memcpy(key, &kind, 4);
		memcpy(key + 4, f->nodes[i].name, len);
		id = dict__intern(frames, key, 4 + len, &added);
		index[i] = id - 1;
		if (!added)
			continue;
		fputs(first ? "{\"name\":" : ",{\"name\":", out);
		json_string(out, f->nodes[i].name, len);
		fputc('}', out);
		first = 0;
	}
	fputs("]},\"profiles\":[{\"type\":\"sampled\",\"name\":", out);
	json_string(out, name, strlen(name));
	fprintf(out, ",\"unit\":\"microseconds\",\"startValue\":0,\"endValue\":%llu,\"samples\":[",
		(unsigned long long)flame__total(f));
	first = 1;
	for (size_t i = 1; i < f->n; i++) {
		size_t n;

		if (!f->nodes[i].self)
			continue;
		n = path_of(f, (uint32_t)i, path);
		fputs(first ? "[" : ",[", out);
		for (size_t j = 0; j < n; j++)
			fprintf(out, j ? ",%u" : "%u", index[path[j]]);
		fputc(']', out);
		first = 0;
	}
	fputs("],\"weights\":[", out);
	first = 1;
	for (size_t i = 1; i < f->n; i++) {
		if (!f->nodes[i].self)
			continue;
		fprintf(out, first ? "%llu" : ",%llu", (unsigned long long)f->nodes[i].self);
		first = 0;
	}
	fputs("]}]}\n", out);
	free(index);
	free(path);
	dict__free(frames);
	return ferror(out) ? -1 : 0;
}
