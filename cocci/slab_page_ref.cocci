// SPDX-License-Identifier: GPL-2.0
/// A page reference taken or dropped on memory that may come from
/// kmalloc().  Small kmalloc() objects live on slab pages, which the
/// frozen pages series allocates with a refcount of zero: get_page() on
/// one warns and put_page() ignores it (patch 0014), where before they
/// raised and dropped a refcount that the slab allocator does not own.
///
/// Three shapes are reported, each within one function:
///  - the page of a kernel address, taken at the call
///    (get_page(virt_to_page(buf)));
///  - the same through a variable or array element
///    (page = virt_to_head_page(buf); ... put_page(page));
///  - pages of a kvec iterator, which iov_iter_extract_pages() hands out
///    without a reference, given one under iov_iter_is_kvec(), at the
///    call or in a helper that takes the page array.
/// Whether the address can be kmalloc()ed is for the reader: see
/// docs/callers.md.
//
// Confidence: Moderate
// Options: --no-includes --include-headers
// Keywords: get_page, put_page; virt_to_page, virt_to_head_page, kmap_to_page, iov_iter_is_kvec
//   (a file is searched only if it names a word of each group: spatch
//   then takes seconds on the tree, not an hour; lib/callers.sh)

virtual report

@initialize:python@
@@
def print_hit(p, what, how):
	print("%s:%s:%s: %s on %s" % (p[0].file, p[0].line, p[0].current_element,
				       what, how))

@direct depends on report@
identifier ref = {get_page, put_page};
identifier to_page = {virt_to_page, virt_to_head_page, kmap_to_page};
expression addr;
position p;
@@

ref@p(to_page(addr))

@script:python depends on report@
p << direct.p;
ref << direct.ref;
to_page << direct.to_page;
@@
print_hit(p, ref, to_page + "()")

@through depends on report@
identifier ref = {get_page, put_page};
identifier to_page = {virt_to_page, virt_to_head_page, kmap_to_page};
expression addr, var, other;
position p;
@@

var = to_page(addr);
... when != var = other
ref@p(var)

@script:python depends on report@
p << through.p;
ref << through.ref;
to_page << through.to_page;
@@
print_hit(p, ref, to_page + "() through a variable")

@declared depends on report@
identifier ref = {get_page, put_page};
identifier to_page = {virt_to_page, virt_to_head_page, kmap_to_page};
identifier var;
expression addr, other;
position p;
@@

struct page *var = to_page(addr);
... when != var = other
ref@p(var)

@script:python depends on report@
p << declared.p;
ref << declared.ref;
to_page << declared.to_page;
@@
print_hit(p, ref, to_page + "() through a variable")

@kvec depends on report@
expression iter;
statement S;
position p;
@@

(
if (iov_iter_is_kvec(iter)) get_page@p(...); else S
|
if (iov_iter_is_kvec(iter)) get_page@p(...);
)

@script:python depends on report@
p << kvec.p;
@@
print_hit(p, "get_page", "kvec pages")

@kvec_helper depends on report@
identifier helper, pages;
expression n;
@@

helper(..., struct page **pages, ...)
{
<+...
get_page(pages[n])
...+>
}

@kvec_call depends on report@
identifier kvec_helper.helper;
expression iter;
statement S;
position p;
@@

(
if (iov_iter_is_kvec(iter)) helper@p(...); else S
|
if (iov_iter_is_kvec(iter)) helper@p(...);
)

@script:python depends on report@
p << kvec_call.p;
helper << kvec_helper.helper;
@@
print_hit(p, "get_page", "kvec pages in " + helper + "()")
