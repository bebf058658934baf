package views

import (
	"encoding/json"
	"io"
	"reflect"
)

// writeJSONDoc writes doc, a command's --json document, as one indented
// object, with every list [] and every map {} rather than null (see
// emptyLists) and HTML characters as they are.
func writeJSONDoc(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(emptyLists(doc))
}

// emptyLists returns a copy of v in which every nil slice and nil map that
// encoding/json would write as null (reached through pointers, structs,
// slices, maps and interfaces) is empty instead. v itself is not changed:
// views draw what they are given. Byte slices (json.RawMessage, base64
// data) are left alone: they are not lists.
func emptyLists(v any) any {
	if v == nil {
		return nil
	}
	return fillLists(reflect.ValueOf(v)).Interface()
}

var rawMessage = reflect.TypeOf(json.RawMessage(nil))

func fillLists(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(fillLists(v.Elem()))
		return p
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(fillLists(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if f := out.Field(i); f.CanSet() {
				f.Set(fillLists(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.Type() == rawMessage || v.Type().Elem().Kind() == reflect.Uint8 {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(fillLists(v.Index(i)))
		}
		return out
	case reflect.Map:
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), fillLists(it.Value()))
		}
		return out
	}
	return v
}
