/* pipe: in progress. */
