/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmbench_compat.h - mainline's API on older kernels, for lib/test_mmbench.c
 * built out of tree.  Not upstream: lib/test_mmbench.c is written against
 * mainline alone, and tooling/mmbench_tool/build.py force-includes this file
 * (ccflags-y += -include) in the out-of-tree build folder it writes, with
 * tooling/compat/include/ last on the include path for the headers that an
 * older kernel does not have.  On mainline every mapping here is a no-op.
 *
 * Rules: a mapping keeps mainline's meaning exactly (an alignment stays an
 * alignment, an order stays an inclusive order); where an older kernel has
 * no equivalent the build stops here with the reason rather than measure
 * something else under the same name.  Each mapping names the mainline
 * commit that introduced the API it provides, and the release it first
 * appeared in, which is what its LINUX_VERSION_CODE check tests.
 */
#ifndef _MMBENCH_COMPAT_H
#define _MMBENCH_COMPAT_H

/*
 * lib/test_mmbench.c defines pr_fmt before its first include; the headers
 * below include printk.h first, so define it here the same way.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/version.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/mmzone.h>
#include <linux/slab.h>
#include <linux/string.h>

/*
 * MAX_PAGE_ORDER, the largest order the page allocator hands out:
 * 5e0a760b4441 ("mm, treewide: rename MAX_ORDER to MAX_PAGE_ORDER"), 6.8.
 * From 6.4 to 6.7 that was MAX_ORDER; before 6.4 MAX_ORDER was one past
 * the largest order, see 23baf831a32c ("mm, treewide: redefine MAX_ORDER
 * sanely"), so it must not be taken as it is there.
 */
#ifndef MAX_PAGE_ORDER
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define MAX_PAGE_ORDER	(MAX_ORDER - 1)
#else
#define MAX_PAGE_ORDER	MAX_ORDER
#endif
#endif

/*
 * struct per_cpu_pages' high_max, the most pages a CPU's lists of a zone
 * may hold before its frees drain them: 90b41691b988 ("mm: add framework
 * for PCP high auto-tuning"), 6.7, which made high move between high_min
 * and high_max.  Before it high was that bound, fixed: the field is taken
 * by that name (after <linux/mmzone.h>, which declares it).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
#define high_max	high
#endif

/*
 * strscpy(dst, src) with the size taken from the array dst:
 * e6584c3964f2 ("string: Allow 2-argument strscpy()"), 6.9: it reached
 * linux-next only after 6.8's merge window, so 6.8 has just the
 * three-argument function.  The inner strscpy is that function: a macro
 * is not expanded again inside its own expansion.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
#define __mmbench_strscpy_pick(_1, _2, _3, name, ...)	name
#define __mmbench_strscpy2(dst, src)	\
	strscpy(dst, src, sizeof(dst) + __must_be_array(dst))
#define __mmbench_strscpy3(dst, src, size)	strscpy(dst, src, size)
#define strscpy(...)							\
	__mmbench_strscpy_pick(__VA_ARGS__, __mmbench_strscpy3,		\
			       __mmbench_strscpy2, ~)(__VA_ARGS__)
#endif

/*
 * abs_diff(a, b), the distance between two values of the same type:
 * 46f12960aad2 ("drm/i915: Move abs_diff() to math.h"), 6.6, which made
 * i915's private helper the generic one in <linux/math.h>.  A macro there,
 * so its absence is what decides here, not the version.
 */
#ifndef abs_diff
#define abs_diff(a, b) ({						\
	typeof(a) __mmbench_a = (a);					\
	typeof(b) __mmbench_b = (b);					\
	(void)(&__mmbench_a == &__mmbench_b);				\
	__mmbench_a > __mmbench_b ? __mmbench_a - __mmbench_b :	\
				    __mmbench_b - __mmbench_a;		\
})
#endif

/*
 * SLAB_NO_MERGE, a cache of its own that is never merged with another:
 * d0bf7d5759c1 ("mm/slab: introduce kmem_cache flag SLAB_NO_MERGE"), 6.5.
 * Before it, a cache with a usercopy region is never merged either (the
 * region only bounds hardened usercopy checks, which the benchmarks never
 * make); without CONFIG_HARDENED_USERCOPY the region is dropped and the
 * cache would be merged, so there is no equivalent.  The flag takes the
 * bit mainline gave it, unused before 6.5, and never reaches the kernel.
 * Keyed on the flag, not the version: a distribution may have backported it.
 */
#ifndef SLAB_NO_MERGE
#ifndef CONFIG_HARDENED_USERCOPY
#error "before 6.5 a cache of its own needs CONFIG_HARDENED_USERCOPY"
#endif
#define SLAB_NO_MERGE	((slab_flags_t __force)0x01000000U)

static inline struct kmem_cache *
mmbench_compat_kmem_cache_create(const char *name, unsigned int size,
				 unsigned int align, slab_flags_t flags,
				 void (*ctor)(void *))
{
	if (!(flags & SLAB_NO_MERGE))
		return kmem_cache_create(name, size, align, flags, ctor);
	return kmem_cache_create_usercopy(name, size, align,
					  flags & ~SLAB_NO_MERGE, 0, size,
					  ctor);
}

#define kmem_cache_create	mmbench_compat_kmem_cache_create
#endif

/*
 * alloc_pages_bulk(gfp, nr, page_array), which fills the empty slots of
 * the array and returns how many are filled: 6bf9b5b40af3 ("mm:
 * alloc_pages_bulk: rename API"), 6.14; the same call was
 * alloc_pages_bulk_array() before.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0)
#define alloc_pages_bulk(gfp, nr_pages, page_array)	\
	alloc_pages_bulk_array(gfp, nr_pages, page_array)
#endif

/*
 * page_frag_alloc_align(nc, fragsz, gfp, align) with align a power of two:
 * 411c5f36805c ("mm/page_alloc: modify page_frag_alloc_align() to accept
 * align as an argument"), 6.9.  Before it the last argument was a mask
 * (-align): passing an alignment there would give fragments that overlap.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 9, 0)
static inline void *
mmbench_compat_page_frag_alloc_align(struct page_frag_cache *nc,
				     unsigned int fragsz, gfp_t gfp,
				     unsigned int align)
{
	WARN_ON_ONCE(!is_power_of_2(align));
	return page_frag_alloc_align(nc, fragsz, gfp, -align);
}

#define page_frag_alloc_align	mmbench_compat_page_frag_alloc_align

/*
 * page_frag_cache_drain(nc), which frees what the cache still holds:
 * a0727489ac22 ("net: introduce page_frag_cache_drain()"), 6.9.  Before it
 * the cache's page and its reference bias were the caller's to free.
 */
static inline void page_frag_cache_drain(struct page_frag_cache *nc)
{
	if (!nc->va)
		return;
	__page_frag_cache_drain(virt_to_head_page(nc->va), nc->pagecnt_bias);
	nc->va = NULL;
}
#endif

/*
 * page_frag_cache_init(nc) in <linux/page_frag_cache.h>: the header is
 * 65941f10caf2 ("mm: move the page fragment allocator from page_alloc
 * into its own file") and the helper 3d18dfe69ce4 ("mm: page_frag: avoid
 * caller accessing 'page_frag_cache' directly"), both 6.13.  Before them
 * a zeroed cache was an empty one; the header of that name is in
 * tooling/compat/include/.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
static inline void page_frag_cache_init(struct page_frag_cache *nc)
{
	memset(nc, 0, sizeof(*nc));
}
#endif

/*
 * preempt_model_lazy(), whether the kernel runs the lazy preemption model:
 * 7c70cb94d29c ("sched: Add Lazy preemption model"), 6.13.  An older
 * kernel may carry that commit as a patch, as the PREEMPT_RT patches of
 * 6.12 do: where its architecture can run the model
 * (ARCH_HAS_PREEMPT_LAZY) the kernel's own function answers.  Elsewhere
 * there is no such model, though the patch declares the function on every
 * architecture: preempt.h is included first, and the module's calls go to
 * a function of another name.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0) && \
	!defined(CONFIG_ARCH_HAS_PREEMPT_LAZY)
#include <linux/preempt.h>
static inline bool mmbench_preempt_model_lazy(void)
{
	return false;
}
#define preempt_model_lazy()	mmbench_preempt_model_lazy()
#endif

/*
 * memcg_kmem_online(), whether kernel memory is charged to memory cgroups:
 * f7a449f77960 ("mm: memcontrol: rename memcg_kmem_enabled()"), 6.3; the
 * same static key test was memcg_kmem_enabled() before.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
#include <linux/memcontrol.h>
#define memcg_kmem_online()	memcg_kmem_enabled()
#endif

#endif /* _MMBENCH_COMPAT_H */
