/* scn: in progress. */
