/* SPDX-License-Identifier: BSD-3-Clause */
/* Geometry, address packing and timing defaults of the emulated NAND. */
#include "nand.h"

#include <errno.h>
#include <string.h>

void nand_geometry_default(struct nand_geometry *g)
{
	*g = (struct nand_geometry){
		.channels = 8,
		.dies_per_channel = 4,
		.planes_per_die = 2,
		.blocks_per_plane = 64,
		.pages_per_block = 384, /* a multiple of 3 for TLC */
		.page_size = 16384,
		.oob_size = 1024,
		.cell = NAND_TLC,
	};
}

int nand_geometry_check(const struct nand_geometry *g, const char **why)
{
	const char *w = NULL;

	if (!g->channels || g->channels > 64)
		w = "channels must be 1..64";
	else if (!g->dies_per_channel || g->dies_per_channel > 64)
		w = "dies_per_channel must be 1..64";
	else if (!g->planes_per_die || g->planes_per_die > 8)
		w = "planes_per_die must be 1..8";
	else if (!g->blocks_per_plane || g->blocks_per_plane > (1u << 20))
		w = "blocks_per_plane must be 1..1048576";
	else if (!g->pages_per_block || g->pages_per_block > 4096)
		w = "pages_per_block must be 1..4096";
	else if (g->page_size < 512 || g->page_size > 65536 ||
		 (g->page_size & (g->page_size - 1)))
		w = "page_size must be a power of two, 512..65536";
	else if (g->oob_size > 8192)
		w = "oob_size must be at most 8192";
	else if (g->cell < NAND_SLC || g->cell > NAND_QLC)
		w = "cell must be SLC, MLC, TLC or QLC";
	else if (g->pages_per_block % (uint32_t)g->cell)
		w = "pages_per_block must be a multiple of the bits per cell";
	if (why)
		*why = w;
	return w ? -EINVAL : 0;
}

uint32_t nand_dies(const struct nand_geometry *g)
{
	return g->channels * g->dies_per_channel;
}

uint64_t nand_blocks(const struct nand_geometry *g)
{
	return (uint64_t)nand_dies(g) * g->planes_per_die * g->blocks_per_plane;
}

uint64_t nand_pages(const struct nand_geometry *g)
{
	return nand_blocks(g) * g->pages_per_block;
}

uint64_t nand_capacity(const struct nand_geometry *g)
{
	return nand_pages(g) * g->page_size;
}

bool nand_addr_valid(const struct nand_geometry *g, const struct nand_addr *a)
{
	return a->ch < g->channels && a->die < g->dies_per_channel &&
	       a->plane < g->planes_per_die && a->block < g->blocks_per_plane &&
	       a->page < g->pages_per_block;
}

uint32_t nand_die_index(const struct nand_geometry *g, const struct nand_addr *a)
{
	return a->ch * g->dies_per_channel + a->die;
}

uint64_t nand_block_index(const struct nand_geometry *g, const struct nand_addr *a)
{
	return ((uint64_t)nand_die_index(g, a) * g->planes_per_die + a->plane) *
		       g->blocks_per_plane +
	       a->block;
}

uint64_t nand_page_index(const struct nand_geometry *g, const struct nand_addr *a)
{
	return nand_block_index(g, a) * g->pages_per_block + a->page;
}

void nand_page_addr(const struct nand_geometry *g, uint64_t idx,
		    struct nand_addr *a)
{
	a->page = (uint32_t)(idx % g->pages_per_block);
	idx /= g->pages_per_block;
	a->block = (uint32_t)(idx % g->blocks_per_plane);
	idx /= g->blocks_per_plane;
	a->plane = (uint32_t)(idx % g->planes_per_die);
	idx /= g->planes_per_die;
	a->die = (uint32_t)(idx % g->dies_per_channel);
	a->ch = (uint32_t)(idx / g->dies_per_channel);
}

uint32_t nand_page_type(const struct nand_geometry *g, uint32_t page)
{
	return page % (uint32_t)g->cell;
}

void nand_timing_default(struct nand_timing *t, enum nand_cell cell)
{
	static const uint64_t us = 1000;

	memset(t, 0, sizeof(*t));
	switch (cell) {
	case NAND_SLC:
		t->t_read_ns[0] = 25 * us;
		t->t_prog_ns[0] = 200 * us;
		t->t_erase_ns = 1500 * us;
		break;
	case NAND_MLC:
		t->t_read_ns[0] = 45 * us;
		t->t_read_ns[1] = 65 * us;
		t->t_prog_ns[0] = 500 * us;
		t->t_prog_ns[1] = 1500 * us;
		t->t_erase_ns = 5000 * us;
		break;
	case NAND_TLC:
	default:
		/* tR around 65 us, tPROG 1.2-3 ms by page type, tBERS 10 ms. */
		t->t_read_ns[0] = 56 * us;
		t->t_read_ns[1] = 65 * us;
		t->t_read_ns[2] = 74 * us;
		t->t_prog_ns[0] = 1200 * us;
		t->t_prog_ns[1] = 2000 * us;
		t->t_prog_ns[2] = 3000 * us;
		t->t_erase_ns = 10000 * us;
		break;
	case NAND_QLC:
		t->t_read_ns[0] = 80 * us;
		t->t_read_ns[1] = 95 * us;
		t->t_read_ns[2] = 110 * us;
		t->t_read_ns[3] = 125 * us;
		t->t_prog_ns[0] = 2000 * us;
		t->t_prog_ns[1] = 3000 * us;
		t->t_prog_ns[2] = 4000 * us;
		t->t_prog_ns[3] = 5000 * us;
		t->t_erase_ns = 15000 * us;
		break;
	}
	t->bus_mbps = 2000; /* 16 KiB in 8.2 us */
	t->t_cmd_ns = 500;
	t->t_suspend_ns = 20 * us;
	t->t_resume_ns = 20 * us;
}
