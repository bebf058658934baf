package views

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestJSONDocHasNoNullLists: every nil list and map a document reaches is
// written as [] or {}, through pointers, structs, slices, maps and
// interfaces; raw JSON and byte data are left alone; the value given is
// not changed.
func TestJSONDocHasNoNullLists(t *testing.T) {
	type inner struct {
		Names []string        `json:"names"`
		Omit  []string        `json:"omit,omitempty"`
		Raw   json.RawMessage `json:"raw"`
		Bytes []byte          `json:"bytes"`
		hide  []string
	}
	type doc struct {
		List   []int             `json:"list"`
		Map    map[string][]int  `json:"map"`
		Ptr    *inner            `json:"ptr"`
		Nil    *inner            `json:"nil"`
		Items  []inner           `json:"items"`
		ByName map[string]*inner `json:"by_name"`
		Any    any               `json:"any"`
	}
	in := &doc{Ptr: &inner{Raw: json.RawMessage(`{"a":null}`), hide: []string{"kept"}}, Items: []inner{{}}, ByName: map[string]*inner{"x": {}},
		Map: map[string][]int{"k": nil}, Any: inner{}}
	var b bytes.Buffer
	if err := writeJSONDoc(&b, in); err != nil {
		t.Fatal(err)
	}
	const want = `{"list":[],"map":{"k":[]},"ptr":{"names":[],"raw":{"a":null},"bytes":null},"nil":null,` +
		`"items":[{"names":[],"raw":null,"bytes":null}],"by_name":{"x":{"names":[],"raw":null,"bytes":null}},` +
		`"any":{"names":[],"raw":null,"bytes":null}}`
	var got bytes.Buffer
	if err := json.Compact(&got, b.Bytes()); err != nil {
		t.Fatal(err)
	}
	if got.String() != want {
		t.Errorf("got  %s\nwant %s", got.String(), want)
	}
	if in.Ptr.hide[0] != "kept" || in.List != nil || in.Ptr.Names != nil || in.Items[0].Names != nil || in.Map["k"] != nil {
		t.Error("the document given was changed")
	}
}
