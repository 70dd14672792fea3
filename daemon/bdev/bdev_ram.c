/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RAM backend: data lives in memory chunks allocated on first write, so
 * only written space costs memory. Unwritten and trimmed ranges read as
 * zeroes. Operations finish at once; completions go through the cq.
 */
#include "bdev.h"
#include "blox_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define RAM_CHUNK_SHIFT 20 /* 1 MiB */
#define RAM_CHUNK (1ull << RAM_CHUNK_SHIFT)

struct ram_bdev {
	struct blox_bdev base;
	uint8_t **chunks;
	uint64_t nr_chunks;
	uint64_t allocated;
};

/*
 * A chunk is its own anonymous mapping: page-aligned, so every block of a
 * 4 KiB-formatted namespace sits in one page and a block copy never
 * straddles two (a calloc'd chunk starts 16 bytes past a page boundary:
 * the copies of 4 KiB random writes cost a third more), and zeroed by the
 * kernel page by page as it is touched.
 */
static uint8_t *chunk_alloc(void)
{
	void *m = mmap(NULL, RAM_CHUNK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

static void chunk_free(uint8_t *chunk)
{
	if (chunk)
		munmap(chunk, RAM_CHUNK);
}

/* Walk the byte range [off, off+len) chunk by chunk. */
#define RAM_FOR_EACH(off, len, ci, co, n)                                  \
	for (uint64_t _o = (off), _end = (off) + (len), ci, co, n;          \
	     _o < _end && ((ci = _o >> RAM_CHUNK_SHIFT),                    \
			   (co = _o & (RAM_CHUNK - 1)),                     \
			   (n = BLOX_MIN(RAM_CHUNK - co, _end - _o)), 1);    \
	     _o += n)

static int ram_write(struct ram_bdev *r, uint64_t off, const uint8_t *src,
		     uint64_t len)
{
	RAM_FOR_EACH(off, len, ci, co, n) {
		if (!r->chunks[ci]) {
			r->chunks[ci] = chunk_alloc();
			if (!r->chunks[ci])
				return -ENOMEM;
			r->allocated += RAM_CHUNK;
		}
		memcpy(r->chunks[ci] + co, src, n);
		src += n;
	}
	return 0;
}

static void ram_read(struct ram_bdev *r, uint64_t off, uint8_t *dst,
		     uint64_t len)
{
	RAM_FOR_EACH(off, len, ci, co, n) {
		if (r->chunks[ci])
			memcpy(dst, r->chunks[ci] + co, n);
		else
			memset(dst, 0, n);
		dst += n;
	}
}

static void ram_zero(struct ram_bdev *r, uint64_t off, uint64_t len)
{
	RAM_FOR_EACH(off, len, ci, co, n) {
		if (!r->chunks[ci])
			continue;
		if (n == RAM_CHUNK) {
			chunk_free(r->chunks[ci]);
			r->chunks[ci] = NULL;
			r->allocated -= RAM_CHUNK;
		} else {
			memset(r->chunks[ci] + co, 0, n);
		}
	}
}

static void ram_submit(struct blox_bdev *bdev, struct blox_io *io)
{
	struct ram_bdev *r = container_of(bdev, struct ram_bdev, base);
	uint64_t off = io->offset;
	int rc = 0;

	if (io->op != BLOX_IO_FLUSH &&
	    (io->offset > bdev->size || io->len > bdev->size - io->offset)) {
		rc = -ERANGE;
		goto done;
	}
	switch (io->op) {
	case BLOX_IO_READ:
		for (int i = 0; i < io->iovcnt; i++) {
			ram_read(r, off, io->iov[i].iov_base, io->iov[i].iov_len);
			off += io->iov[i].iov_len;
		}
		break;
	case BLOX_IO_WRITE:
		for (int i = 0; i < io->iovcnt && !rc; i++) {
			rc = ram_write(r, off, io->iov[i].iov_base,
				       io->iov[i].iov_len);
			off += io->iov[i].iov_len;
		}
		break;
	case BLOX_IO_WRITE_ZEROES:
	case BLOX_IO_TRIM:
		ram_zero(r, io->offset, io->len);
		break;
	case BLOX_IO_FLUSH:
		break;
	default:
		rc = -EOPNOTSUPP;
	}
done:
	io->status = rc;
	blox_io_cq_post(bdev->cq, io);
}

static void ram_destroy(struct blox_bdev *bdev)
{
	struct ram_bdev *r = container_of(bdev, struct ram_bdev, base);

	for (uint64_t i = 0; i < r->nr_chunks; i++)
		chunk_free(r->chunks[i]);
	free(r->chunks);
	free(r);
}

static uint64_t ram_mem_bytes(struct blox_bdev *bdev)
{
	return container_of(bdev, struct ram_bdev, base)->allocated;
}

static const struct blox_bdev_ops ram_ops = {
	.name = "ram",
	.submit = ram_submit,
	.destroy = ram_destroy,
	.mem_bytes = ram_mem_bytes,
};

int blox_bdev_ram_create(const struct blox_bdev_params *p,
			 struct blox_io_cq *cq, struct blox_bdev **out)
{
	struct ram_bdev *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->nr_chunks = (p->size + RAM_CHUNK - 1) >> RAM_CHUNK_SHIFT;
	r->chunks = calloc(r->nr_chunks, sizeof(*r->chunks));
	if (!r->chunks) {
		free(r);
		return -ENOMEM;
	}
	r->base.ops = &ram_ops;
	r->base.size = p->size;
	r->base.block_size = p->block_size;
	r->base.cq = cq;
	*out = &r->base;
	return 0;
}
