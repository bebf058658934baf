// Package exportrec reads and writes the working copy's record of the
// spreadsheets it wrote (.leadsync/exports.json): for each export in each
// workspace, the files, the digest of its configuration and the mark of
// the state it was written from (state.DataMark). It is a file of this
// working copy, never part of the state, whatever the backend: run reads
// it for the plan and updates it once the files are written.
//
// It imports state (for DataMark and the workspace names) and safefile;
// only run uses it.
package exportrec
