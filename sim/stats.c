/* stats: in progress. */
