// Package listfile reads the list files a team already owns (customer
// lists, do-not-contact lists, exports of other tools) and matches their
// values the way a marketer's lists need.
//
// Read takes a CSV or XLSX file with a header row and returns the columns
// asked for, each cell with the file's row number, so that every problem
// is reported as file:row and column. It decides the text encoding (UTF-8,
// with or without a byte order mark; UTF-16 with one; Windows-1252 or
// ISO-8859-1 only when the caller names it) and the CSV delimiter (",",
// ";" or tab, from the header line).
//
// Kind.Key normalises one value (a company name, a domain, an e-mail, a
// profile URL, a page name or a network ID) to the key it is matched by;
// a Set holds the keys of one column. The rules are listed on each
// function and in docs/configuration.md ("How list values are matched").
//
// listfile imports only textfmt of leadsync: config reads the files, plan and
// engine match people with the keys, without a dependency on each other.
package listfile
