/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * File backing store: one sparse file holding a header (magic, version,
 * geometry), the per-block meta table, the per-die counters, then every
 * page's data and OOB at a fixed stride. Only programmed pages take disk
 * space: erasing a block punches its pages out of the file. A block's
 * meta entry is written after each program or erase of the block, so a
 * reopened store knows which pages hold data.
 *
 * Reads are served from a read-only shared mapping of the page-data
 * region, so a read of part of a page (read_part) copies just those bytes
 * out of the page cache, with no system call. Writes stay pwritev: a full
 * disk must fail a program with -ENOSPC or -EIO, not raise SIGBUS through
 * a writable mapping. Programs through pwritev and reads through the
 * mapping share one page cache (Linux), so a page is seen as soon as its
 * program returns; a punched range reads as zeroes through the mapping,
 * though the engine never reads erased pages. The file always has its
 * full size before it is mapped (ftruncate at creation, extended at
 * reopen if shorter), so the mapping never reaches past its end.
 *
 * Huge pages (nand_store_file_huge_pages(), off by default): the mapping is
 * advised MADV_HUGEPAGE, so where the kernel keeps the file's page cache in
 * 2 MiB folios a fault maps 2 MiB at once and a read's copy takes no TLB
 * miss. A folio takes its size when it enters the page cache: a pwritev
 * into a region not yet cached makes small ones, a fault through the
 * advised mapping a 2 MiB one. So a program first touches its page's two
 * ends through the mapping (store_prefault), which brings the region in as
 * one folio (a hole reads as zeroes) before pwritev fills part of it. The
 * price: that first fault allocates and zeroes 2 MiB, and an erase punches
 * its block out (splitting the folios at its ends), so the next programs
 * there fault it in again (docs/PERFORMANCE.md, "The store on huge pages").
 */
#include "nand.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define FILE_MAGIC "BLOXNAND"
#define FILE_VERSION 1u
#define HDR_SIZE 4096u
#define ALIGN 4096u

struct file_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;
	struct nand_geometry geo;
	uint64_t meta_off, counters_off, data_off;
	uint64_t stride;
	uint64_t pages_stored;
};

struct file_store {
	struct nand_store base;
	int fd;
	struct file_hdr hdr;
	void *map; /* from the page below data_off to the end; NULL: no mapping */
	size_t map_len;
	const uint8_t *pages; /* page 0's data in the mapping, or NULL */
	bool huge;            /* nand_store_file_huge_pages(): prefault programs */
};

static struct file_store *to_file(struct nand_store *s)
{
	return (struct file_store *)s;
}

static uint64_t align_up(uint64_t v)
{
	return (v + ALIGN - 1) / ALIGN * ALIGN;
}

static int full_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

static int full_pread(int fd, void *buf, size_t len, off_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0) { /* a hole past the end reads as zeroes */
			memset(p, 0, len);
			return 0;
		}
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

static int meta_write(struct file_store *f, uint64_t block)
{
	return full_pwrite(f->fd, &f->base.blocks[block], sizeof(f->base.blocks[0]),
			   (off_t)(f->hdr.meta_off + block * sizeof(f->base.blocks[0])));
}

static off_t page_off(const struct file_store *f, uint64_t page)
{
	return (off_t)(f->hdr.data_off + page * f->hdr.stride);
}

/* @len bytes at @off of a page's stride (data, then OOB at page_size). */
static int file_read_part(struct nand_store *s, uint64_t page, uint32_t off, uint32_t len,
			  void *dst)
{
	struct file_store *f = to_file(s);

	if (s->blocks[page / s->geo.pages_per_block].flags & NAND_BLOCK_OFFLINE)
		return -ENODEV; /* its die is offline */
	if (f->pages) {
		memcpy(dst, f->pages + page * f->hdr.stride + off, len);
		return 0;
	}
	return full_pread(f->fd, dst, len, page_off(f, page) + off);
}

static const void *file_peek(struct nand_store *s, uint64_t page, uint32_t off)
{
	struct file_store *f = to_file(s);

	if (!f->pages || (s->blocks[page / s->geo.pages_per_block].flags & NAND_BLOCK_OFFLINE))
		return NULL;
	return f->pages + page * f->hdr.stride + off;
}

static int file_read(struct nand_store *s, uint64_t page, void *data, void *oob)
{
	int rc = 0;

	if (data)
		rc = file_read_part(s, page, 0, s->geo.page_size, data);
	if (!rc && oob)
		rc = file_read_part(s, page, s->geo.page_size, s->geo.oob_size, oob);
	return rc;
}

/*
 * On huge pages: touch @page's first and last bytes through the mapping
 * before it is written, so that its region enters the page cache through
 * a fault of the advised mapping (one 2 MiB folio where the kernel can)
 * rather than through pwritev (small ones). A cached region costs a load.
 */
static void store_prefault(const struct file_store *f, uint64_t page)
{
	const volatile uint8_t *p;

	if (!f->huge)
		return;
	p = f->pages + page * f->hdr.stride;
	/* Both ends: a page's stride can cross into the next 2 MiB. */
	(void)p[0];
	(void)p[f->hdr.stride - 1];
}

static int file_program(struct nand_store *s, uint64_t page, const void *data,
			const void *oob)
{
	struct file_store *f = to_file(s);
	uint32_t ppb = s->geo.pages_per_block;
	uint64_t b = page / ppb;
	void *zero = NULL;
	struct iovec iov[2];
	ssize_t n;
	size_t want = (size_t)s->geo.page_size + s->geo.oob_size;
	int rc;

	if (s->blocks[page / s->geo.pages_per_block].flags & NAND_BLOCK_OFFLINE)
		return -ENODEV; /* its die is offline */
	if (!data || !oob) {
		zero = calloc(1, want);
		if (!zero)
			return -ENOMEM;
	}
	store_prefault(f, page);
	iov[0] = (struct iovec){ data ? (void *)data : zero, s->geo.page_size };
	iov[1] = (struct iovec){ oob ? (void *)oob : (uint8_t *)zero + s->geo.page_size,
				 s->geo.oob_size };
	do {
		n = pwritev(f->fd, iov, 2, page_off(f, page));
	} while (n < 0 && errno == EINTR);
	rc = n < 0 ? -errno : (size_t)n != want ? -EIO : 0;
	free(zero);
	if (rc)
		return rc;
	s->blocks[b].write_ptr = (uint32_t)(page % ppb) + 1;
	s->pages_stored++;
	return meta_write(f, b);
}

static int file_erase(struct nand_store *s, uint64_t block)
{
	struct file_store *f = to_file(s);
	uint32_t ppb = s->geo.pages_per_block;
	off_t off = page_off(f, block * ppb);
	off_t len = (off_t)(ppb * f->hdr.stride);

	if (fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len) &&
	    errno != EOPNOTSUPP)
		return -errno;
	s->pages_stored -= (s->pages_stored < s->blocks[block].write_ptr ? s->pages_stored : s->blocks[block].write_ptr);
	s->blocks[block].erase_count++;
	s->blocks[block].write_ptr = 0;
	return meta_write(f, block);
}

static int file_sync(struct nand_store *s)
{
	struct file_store *f = to_file(s);
	size_t cl = nand_dies(&s->geo) * sizeof(s->dies[0]);
	size_t ml = nand_blocks(&s->geo) * sizeof(s->blocks[0]);
	int rc;

	f->hdr.pages_stored = s->pages_stored;
	rc = full_pwrite(f->fd, s->dies, cl, (off_t)f->hdr.counters_off);
	if (!rc)
		rc = full_pwrite(f->fd, s->blocks, ml, (off_t)f->hdr.meta_off);
	if (!rc)
		rc = full_pwrite(f->fd, &f->hdr, sizeof(f->hdr), 0);
	if (!rc && fdatasync(f->fd))
		rc = -errno;
	return rc;
}

static void file_close(struct nand_store *s)
{
	struct file_store *f = to_file(s);

	file_sync(s);
	if (f->map)
		munmap(f->map, f->map_len);
	close(f->fd);
	free(s->blocks);
	free(s->dies);
	free(f);
}

static const struct nand_store_ops file_ops;

bool nand_store_file_huge_pages(struct nand_store *s)
{
	struct file_store *f = to_file(s);

	if (!s || s->ops != &file_ops || !f->pages)
		return false;
#ifdef MADV_HUGEPAGE
	f->huge = madvise(f->map, f->map_len, MADV_HUGEPAGE) == 0;
#endif
	return f->huge;
}

static const struct nand_store_ops file_ops = {
	.name = "file",
	.read = file_read,
	.read_part = file_read_part,
	.peek = file_peek,
	.program = file_program,
	.erase = file_erase,
	.sync = file_sync,
	.close = file_close,
};

static void hdr_init(struct file_hdr *h, const struct nand_geometry *g)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, FILE_MAGIC, sizeof(h->magic));
	h->version = FILE_VERSION;
	h->hdr_size = HDR_SIZE;
	h->geo = *g;
	h->meta_off = HDR_SIZE;
	h->counters_off = align_up(h->meta_off + nand_blocks(g) * sizeof(struct nand_block_meta));
	h->data_off = align_up(h->counters_off + nand_dies(g) * sizeof(struct nand_die_counters));
	h->stride = (uint64_t)g->page_size + g->oob_size;
}

uint64_t nand_store_file_bytes(const struct nand_geometry *g)
{
	struct file_hdr h;

	hdr_init(&h, g);
	return h.data_off + nand_pages(g) * h.stride;
}

/*
 * Map the page-data region of the file, which has its full size by now.
 * If mmap fails (no address space for a large device on a 32-bit host, a
 * file system that cannot map), f->pages stays NULL and reads use pread.
 */
static void file_map(struct file_store *f, const struct nand_geometry *g)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t start = f->hdr.data_off, end = nand_store_file_bytes(g);
	void *p;

	if (psz > 0)
		start -= start % (uint64_t)psz;
	if (end - start > SIZE_MAX)
		return;
	p = mmap(NULL, (size_t)(end - start), PROT_READ, MAP_SHARED, f->fd, (off_t)start);
	if (p == MAP_FAILED)
		return;
	/* Reads are of single pages or less: no readahead around a fault. */
	(void)madvise(p, (size_t)(end - start), MADV_RANDOM);
	f->map = p;
	f->map_len = (size_t)(end - start);
	f->pages = (const uint8_t *)p + (f->hdr.data_off - start);
}

int nand_store_file_open(const char *path, const struct nand_geometry *g,
			 struct nand_store **out)
{
	struct file_store *f;
	struct stat st;
	int rc = nand_geometry_check(g, NULL);

	if (rc)
		return rc;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (f->fd < 0) {
		rc = -errno;
		goto free_f;
	}
	f->base.ops = &file_ops;
	f->base.geo = *g;
	f->base.blocks = calloc(nand_blocks(g), sizeof(*f->base.blocks));
	f->base.dies = calloc(nand_dies(g), sizeof(*f->base.dies));
	if (!f->base.blocks || !f->base.dies) {
		rc = -ENOMEM;
		goto free_all;
	}
	if (fstat(f->fd, &st)) {
		rc = -errno;
		goto free_all;
	}
	if (st.st_size == 0) {
		hdr_init(&f->hdr, g);
		rc = ftruncate(f->fd, (off_t)nand_store_file_bytes(g)) ? -errno : 0;
		if (!rc)
			rc = file_sync(&f->base);
		if (rc)
			goto free_all;
	} else {
		struct file_hdr want;

		hdr_init(&want, g);
		rc = full_pread(f->fd, &f->hdr, sizeof(f->hdr), 0);
		if (rc)
			goto free_all;
		if (memcmp(f->hdr.magic, FILE_MAGIC, sizeof(f->hdr.magic)) ||
		    f->hdr.version != FILE_VERSION ||
		    memcmp(&f->hdr.geo, g, sizeof(*g)) ||
		    f->hdr.data_off != want.data_off) {
			rc = -EINVAL; /* not ours, or another geometry */
			goto free_all;
		}
		rc = full_pread(f->fd, f->base.blocks,
				nand_blocks(g) * sizeof(f->base.blocks[0]),
				(off_t)f->hdr.meta_off);
		if (!rc)
			rc = full_pread(f->fd, f->base.dies,
					nand_dies(g) * sizeof(f->base.dies[0]),
					(off_t)f->hdr.counters_off);
		if (rc)
			goto free_all;
		/* A file cut short (copied, truncated) grows back: holes read as zeroes. */
		if ((uint64_t)st.st_size < nand_store_file_bytes(g) &&
		    ftruncate(f->fd, (off_t)nand_store_file_bytes(g))) {
			rc = -errno;
			goto free_all;
		}
		f->base.pages_stored = 0;
		for (uint64_t b = 0; b < nand_blocks(g); b++)
			f->base.pages_stored += f->base.blocks[b].write_ptr;
	}
	file_map(f, g);
	*out = &f->base;
	return 0;

free_all:
	free(f->base.blocks);
	free(f->base.dies);
	close(f->fd);
free_f:
	free(f);
	return rc;
}
