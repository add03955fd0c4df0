/* trace: in progress. */
