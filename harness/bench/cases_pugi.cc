// cases_pugi.cc - the pugixml peer: parse, traverse and serialize done by
// pugixml (Debian's libpugixml-dev) on the same datasets, as the cases
// pugi:parse, pugi:traverse and pugi:serialize (reported as variant
// `pugixml`).  The table is in cases.c; like the ref: cases they run only
// with --ref.
//
// Choices, so the rows compare with domlab's: the input is copied into
// the document (load_buffer, as insitu copies it into the arena), with
// parse_full | parse_ws_pcdata, so comments, PIs and white-space text are
// nodes as in our tree; a fresh xml_document per parse (as dom_parse
// makes a fresh document); serialization is format_raw into one buffer.
// pugixml does not resolve namespaces nor check all of well-formedness;
// that is the peer's choice, not ours.  Its memory goes through
// pugi::set_memory_management_functions into util/alloc.h's counters --
// process-wide, set once before the first pugixml document exists.
//
// Not for: anything domlab's cases do not also measure.
#include <pugixml.hpp>

#include <cstring>
#include <mutex>
#include <new>

extern "C" {
#include "util/alloc.h"
#include "util/buf.h"
#include "util/err.h"
}
#include "harness/bench/bench.h"

namespace {

constexpr unsigned kParse = pugi::parse_full | pugi::parse_ws_pcdata;

std::once_flag memory_once;

void* Allocate(size_t n) { return lab_malloc(n); }
void Deallocate(void* p) { lab_free(p); }

struct PugiCtx {
  const lab_case_data* d = nullptr;
  pugi::xml_document* doc = nullptr;  // traverse, serialize: parsed once
  lab_buf out = LAB_BUF_INIT;
  size_t sink = 0;
};

struct Writer : pugi::xml_writer {
  lab_buf* out;
  int rc = LAB_OK;
  explicit Writer(lab_buf* b) : out(b) {}
  void write(const void* data, size_t size) override {
    if (rc == LAB_OK) rc = lab_buf_put(out, data, size);
  }
};

int Parse(const lab_case_data* d, pugi::xml_document* doc, lab_err* err) {
  pugi::xml_parse_result r = doc->load_buffer(d->bytes, d->len, kParse,
                                              pugi::encoding_utf8);
  if (!r)
    return lab_fail(err, LAB_EMALFORMED, "pugixml: %s at offset %td",
                    r.description(), r.offset);
  return LAB_OK;
}

// Counts elements and attributes without recursion.
void Count(const pugi::xml_node& root, lab_case_info* out) {
  pugi::xml_node n = root.first_child();
  while (n) {
    if (n.type() == pugi::node_element) {
      out->elements++;
      for (pugi::xml_attribute a = n.first_attribute(); a;
           a = a.next_attribute())
        out->attributes++;
    }
    if (n.first_child()) {
      n = n.first_child();
      continue;
    }
    while (n && !n.next_sibling() && n != root) n = n.parent();
    if (!n || n == root) break;
    n = n.next_sibling();
  }
}

}  // namespace

extern "C" {

int lab_pugi_setup(void** ctx, const lab_case_data* d, lab_err* err) {
  std::call_once(memory_once, [] {
    pugi::set_memory_management_functions(Allocate, Deallocate);
  });
  PugiCtx* c = new (std::nothrow) PugiCtx;
  *ctx = nullptr;
  if (c == nullptr) return lab_fail(err, LAB_ENOMEM, "out of memory");
  c->d = d;
  *ctx = c;
  return LAB_OK;
}

int lab_pugi_setup_parsed(void** ctx, const lab_case_data* d, lab_err* err) {
  int rc = lab_pugi_setup(ctx, d, err);
  if (rc != LAB_OK) return rc;
  PugiCtx* c = static_cast<PugiCtx*>(*ctx);
  c->doc = new (std::nothrow) pugi::xml_document;
  rc = c->doc == nullptr ? lab_fail(err, LAB_ENOMEM, "out of memory")
                         : Parse(d, c->doc, err);
  if (rc != LAB_OK) {
    lab_pugi_teardown(c);
    *ctx = nullptr;
  }
  return rc;
}

int lab_pugi_run_parse(void* ctx, lab_err* err) {
  PugiCtx* c = static_cast<PugiCtx*>(ctx);
  pugi::xml_document doc;
  return Parse(c->d, &doc, err);
}

// What run_traverse reads of our tree: names, and the length and first
// byte of every value.
int lab_pugi_run_traverse(void* ctx, lab_err* err) {
  PugiCtx* c = static_cast<PugiCtx*>(ctx);
  pugi::xml_node root = *c->doc, n = root.first_child();
  size_t h = 0;

  (void)err;
  while (n) {
    if (n.type() == pugi::node_element) {
      h += reinterpret_cast<uintptr_t>(n.name());
    } else {
      const char* v = n.value();
      size_t len = std::strlen(v);
      h += len + (len > 0 ? static_cast<unsigned char>(v[0]) : 0);
    }
    if (n.first_child()) {
      n = n.first_child();
      continue;
    }
    while (n && !n.next_sibling() && n != root) n = n.parent();
    if (!n || n == root) break;
    n = n.next_sibling();
  }
  c->sink = h;
  return LAB_OK;
}

int lab_pugi_run_serialize(void* ctx, lab_err* err) {
  PugiCtx* c = static_cast<PugiCtx*>(ctx);
  Writer w(&c->out);

  c->out.len = 0;
  c->doc->save(w, "", pugi::format_raw, pugi::encoding_utf8);
  if (w.rc != LAB_OK) return lab_fail(err, LAB_ENOMEM, "out of memory");
  c->sink = c->out.len;
  return LAB_OK;
}

// Elements, attributes, and the heap a parsed document holds (its copy of
// the input included, as insitu's arena holds its copy).
int lab_pugi_info(void* ctx, lab_case_info* out, lab_err* err) {
  PugiCtx* c = static_cast<PugiCtx*>(ctx);
  pugi::xml_document doc;

  lab_mem_reset();
  int64_t live = lab_mem_get().live;
  int rc = Parse(c->d, &doc, err);
  if (rc != LAB_OK) return rc;
  out->tree_bytes = static_cast<size_t>(lab_mem_get().live - live);
  Count(doc, out);
  return LAB_OK;
}

void lab_pugi_teardown(void* ctx) {
  PugiCtx* c = static_cast<PugiCtx*>(ctx);
  if (c == nullptr) return;
  delete c->doc;
  lab_buf_free(&c->out);
  delete c;
}

}  // extern "C"
