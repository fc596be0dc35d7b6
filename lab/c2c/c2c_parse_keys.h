/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cells of a parsed perf c2c report, in TSV order: a cacheline's and an
 * offset row's keys (c2c_parse.h's struct c2c_cacheline and c2c_offset
 * index them; c2c_parse_cols.c maps perf's columns to them).
 */
#ifndef LAB_C2C_C2C_PARSE_KEYS_H
#define LAB_C2C_C2C_PARSE_KEYS_H

/* Cacheline (Shared Data table + Pareto summary) cells, in TSV order. */
enum c2c_cl_key {
	CL_INDEX, CL_ADDRESS, CL_NODE, CL_PA_CNT, CL_SHARE_OF, CL_SHARE_PCT,
	CL_HITM_TOTAL, CL_HITM_LCL, CL_HITM_RMT,
	CL_PEER_TOTAL, CL_PEER_LCL, CL_PEER_RMT,
	CL_RECORDS, CL_LOADS, CL_STORES, CL_ST_L1HIT, CL_ST_L1MISS, CL_ST_NA,
	CL_LD_FB, CL_LD_L1, CL_LD_L2, CL_LD_LCLHIT, CL_LD_LCLHITM,
	CL_LD_RMTHIT, CL_LD_RMTHITM, CL_DRAM_LCL, CL_DRAM_RMT, CL_LLC_LD_MISS,
	CL_EXTRA,
	CL_NKEYS
};

/* Pareto offset-row cells, in TSV order. */
enum c2c_off_key {
	OFF_CACHELINE, OFF_CACHELINE_ADDRESS, OFF_OFFSET, OFF_DATA_ADDRESS,
	OFF_NODE, OFF_PA_CNT, OFF_PID, OFF_TID, OFF_COMM, OFF_CODE_ADDRESS,
	OFF_HITM_RMT_PCT, OFF_HITM_LCL_PCT, OFF_PEER_RMT_PCT, OFF_PEER_LCL_PCT,
	OFF_PEER_PCT, OFF_ST_L1HIT_PCT, OFF_ST_L1MISS_PCT, OFF_ST_NA_PCT,
	OFF_CYCLES_RMT, OFF_CYCLES_LCL, OFF_CYCLES_LOAD, OFF_CYCLES_PEER,
	OFF_RECORDS, OFF_CPU_CNT, OFF_SYMBOL_TYPE, OFF_SYMBOL, OFF_OBJECT,
	OFF_SOURCE, OFF_NODE_INFO, OFF_EXTRA,
	OFF_NKEYS
};

#endif
