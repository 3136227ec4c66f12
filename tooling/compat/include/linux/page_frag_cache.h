/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <linux/page_frag_cache.h> for kernels before 6.13, which declare the
 * page_frag API in <linux/gfp.h> and <linux/mm_types.h>.  It is last on the
 * include path of an out-of-tree build (tooling/mmbench_tool/build.py), so
 * a kernel's own header of that name is always taken first;
 * mmbench_compat.h provides the helpers such a kernel lacks.
 */
#ifndef _MMBENCH_COMPAT_PAGE_FRAG_CACHE_H
#define _MMBENCH_COMPAT_PAGE_FRAG_CACHE_H

#include <linux/gfp.h>
#include <linux/mm_types.h>

#endif
