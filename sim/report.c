/* report: in progress. */
