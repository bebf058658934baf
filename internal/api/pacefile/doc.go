// Package pacefile keeps the pace of an API key in a file of the state's
// folder (.leadsync/pace), shared by the leadsync processes of one working
// copy: the api.SharedPace of a local state. A backend with a shared pace
// of its own (the pg backend's table) replaces it.
//
// It imports api (for SharedPace and PaceKeyID), filelock and safefile.
package pacefile
