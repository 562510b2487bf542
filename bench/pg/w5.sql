-- W5: pgbench's select-only transaction with a skewed key.  The hot rows are
-- the low aids, so the hot pages are a fraction of pgbench_accounts' heap and
-- of its primary key: the working set is hot at page granularity inside a few
-- large relation files, not at file granularity.  :skew is set by w5.sh run
-- (W5_SKEW): with random_exponential(1, n, s) the first 1/s of the rows take
-- 1 - 1/e of the reads (s = 25: 63% of the reads on 4% of the rows, 99% on 18%).
\set naccounts 100000 * :scale
\set aid random_exponential(1, :naccounts, :skew)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
