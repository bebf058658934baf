package config

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// maxFileSize bounds what file() reads: configuration, not data.
const maxFileSize = 4 << 20

// functions returns the function library of the language: Terraform's
// everyday set. file() and fileexists() read from fsys, relative to the
// configuration directory. Clock-dependent functions (timestamp) are left
// out on purpose: a plan must not change by itself.
func functions(fsys fs.FS, dir string) map[string]function.Function {
	fns := map[string]function.Function{
		// numeric
		"abs": stdlib.AbsoluteFunc, "ceil": stdlib.CeilFunc, "floor": stdlib.FloorFunc,
		"log": stdlib.LogFunc, "max": stdlib.MaxFunc, "min": stdlib.MinFunc,
		"parseint": stdlib.ParseIntFunc, "pow": stdlib.PowFunc, "signum": stdlib.SignumFunc,
		// string
		"chomp": stdlib.ChompFunc, "format": stdlib.FormatFunc, "formatlist": stdlib.FormatListFunc,
		"indent": stdlib.IndentFunc, "join": stdlib.JoinFunc, "lower": stdlib.LowerFunc,
		"regex": stdlib.RegexFunc, "regexall": stdlib.RegexAllFunc, "split": stdlib.SplitFunc,
		"strrev": stdlib.ReverseFunc, "substr": stdlib.SubstrFunc, "title": stdlib.TitleFunc,
		"trim": stdlib.TrimFunc, "trimprefix": stdlib.TrimPrefixFunc, "trimsuffix": stdlib.TrimSuffixFunc,
		"trimspace": stdlib.TrimSpaceFunc, "upper": stdlib.UpperFunc,
		"replace": replaceFunc, "startswith": startsWithFunc, "endswith": endsWithFunc,
		"strcontains": strContainsFunc,
		// collection
		"chunklist": stdlib.ChunklistFunc, "coalesce": stdlib.CoalesceFunc,
		"coalescelist": stdlib.CoalesceListFunc, "compact": stdlib.CompactFunc,
		"concat": stdlib.ConcatFunc, "contains": stdlib.ContainsFunc, "distinct": stdlib.DistinctFunc,
		"element": stdlib.ElementFunc, "flatten": stdlib.FlattenFunc, "keys": stdlib.KeysFunc,
		"lookup": stdlib.LookupFunc, "merge": stdlib.MergeFunc, "range": rangeFunc,
		"reverse": stdlib.ReverseListFunc, "setintersection": stdlib.SetIntersectionFunc,
		"setproduct": setProductFunc, "setsubtract": stdlib.SetSubtractFunc,
		"setunion": stdlib.SetUnionFunc, "slice": stdlib.SliceFunc, "sort": stdlib.SortFunc,
		"values": stdlib.ValuesFunc, "zipmap": stdlib.ZipmapFunc,
		"length": lengthFunc, "index": indexFunc, "alltrue": allTrueFunc, "anytrue": anyTrueFunc,
		"one": oneFunc, "sum": sumFunc,
		// encoding
		"csvdecode": stdlib.CSVDecodeFunc, "jsondecode": stdlib.JSONDecodeFunc,
		"jsonencode":   stdlib.JSONEncodeFunc,
		"base64encode": base64EncodeFunc, "base64decode": base64DecodeFunc, "urlencode": urlEncodeFunc,
		// hashing
		"md5":    hashFunc(func(b []byte) []byte { s := md5.Sum(b); return s[:] }),
		"sha1":   hashFunc(func(b []byte) []byte { s := sha1.Sum(b); return s[:] }),
		"sha256": hashFunc(func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }),
		// date and time (pure)
		"formatdate": stdlib.FormatDateFunc, "timeadd": stdlib.TimeAddFunc,
		// type conversion
		"tobool": stdlib.MakeToFunc(cty.Bool), "tonumber": stdlib.MakeToFunc(cty.Number),
		"tostring": stdlib.MakeToFunc(cty.String), "tolist": fastCollectionFunc(false), "toset": fastCollectionFunc(true), "tomap": stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"try": tryfunc.TryFunc, "can": tryfunc.CanFunc,
	}
	fns["file"] = fileFunc(fsys, dir)
	fns["fileexists"] = fileExistsFunc(fsys, dir)
	return fns
}

func stringFunc(params []string, impl func(args []string) (cty.Value, error), ret cty.Type) function.Function {
	ps := make([]function.Parameter, len(params))
	for i, p := range params {
		ps[i] = function.Parameter{Name: p, Type: cty.String}
	}
	return function.New(&function.Spec{
		Params: ps,
		Type:   function.StaticReturnType(ret),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			ss := make([]string, len(args))
			for i, a := range args {
				ss[i] = a.AsString()
			}
			return impl(ss)
		},
	})
}

var startsWithFunc = stringFunc([]string{"str", "prefix"}, func(a []string) (cty.Value, error) {
	return cty.BoolVal(strings.HasPrefix(a[0], a[1])), nil
}, cty.Bool)

var endsWithFunc = stringFunc([]string{"str", "suffix"}, func(a []string) (cty.Value, error) {
	return cty.BoolVal(strings.HasSuffix(a[0], a[1])), nil
}, cty.Bool)

var strContainsFunc = stringFunc([]string{"str", "substr"}, func(a []string) (cty.Value, error) {
	return cty.BoolVal(strings.Contains(a[0], a[1])), nil
}, cty.Bool)

// replaceFunc is Terraform's replace: a substring, or a regular expression
// when the search string is wrapped in slashes.
var replaceFunc = stringFunc([]string{"str", "substr", "replace"}, func(a []string) (cty.Value, error) {
	str, sub, rep := a[0], a[1], a[2]
	if len(sub) > 1 && sub[0] == '/' && sub[len(sub)-1] == '/' {
		re, err := regexp.Compile(sub[1 : len(sub)-1])
		if err != nil {
			return cty.NilVal, function.NewArgErrorf(1, "invalid regular expression: %s", err)
		}
		return cty.StringVal(re.ReplaceAllString(str, rep)), nil
	}
	return cty.StringVal(strings.ReplaceAll(str, sub, rep)), nil
}, cty.String)

var base64EncodeFunc = stringFunc([]string{"str"}, func(a []string) (cty.Value, error) {
	return cty.StringVal(base64.StdEncoding.EncodeToString([]byte(a[0]))), nil
}, cty.String)

var base64DecodeFunc = stringFunc([]string{"str"}, func(a []string) (cty.Value, error) {
	b, err := base64.StdEncoding.DecodeString(a[0])
	if err != nil {
		return cty.NilVal, function.NewArgErrorf(0, "not valid base64: %s", err)
	}
	if !utf8.Valid(b) {
		return cty.NilVal, function.NewArgErrorf(0, "the decoded bytes are not valid UTF-8")
	}
	return cty.StringVal(string(b)), nil
}, cty.String)

var urlEncodeFunc = stringFunc([]string{"str"}, func(a []string) (cty.Value, error) {
	return cty.StringVal(url.QueryEscape(a[0])), nil
}, cty.String)

func hashFunc(sum func([]byte) []byte) function.Function {
	return stringFunc([]string{"str"}, func(a []string) (cty.Value, error) {
		return cty.StringVal(hex.EncodeToString(sum([]byte(a[0])))), nil
	}, cty.String)
}

// lengthFunc counts characters of a string or elements of a collection.
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowUnknown: true}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		if ty == cty.String || ty == cty.DynamicPseudoType || ty.IsCollectionType() || ty.IsTupleType() || ty.IsObjectType() {
			return cty.Number, nil
		}
		return cty.NilType, function.NewArgErrorf(0, "length takes a string, list, set, map, tuple or object")
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		if !v.IsKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		if v.IsNull() {
			return cty.NilVal, function.NewArgErrorf(0, "argument must not be null")
		}
		if v.Type() == cty.String {
			return stdlib.Strlen(v)
		}
		if v.Type().IsObjectType() {
			return cty.NumberIntVal(int64(len(v.Type().AttributeTypes()))), nil
		}
		return v.Length(), nil
	},
})

// indexFunc is Terraform's index(list, value): the position of value.
var indexFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "list", Type: cty.DynamicPseudoType},
		{Name: "value", Type: cty.DynamicPseudoType},
	},
	Type: function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		l := args[0]
		if !(l.Type().IsListType() || l.Type().IsTupleType()) {
			return cty.NilVal, function.NewArgErrorf(0, "index takes a list or tuple")
		}
		i := 0
		for it := l.ElementIterator(); it.Next(); i++ {
			_, v := it.Element()
			if eq := v.Equals(args[1]); eq.IsKnown() && eq.True() {
				return cty.NumberIntVal(int64(i)), nil
			}
		}
		return cty.NilVal, function.NewArgErrorf(1, "the value is not in the list")
	},
})

func boolListFunc(all bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			for it := args[0].ElementIterator(); it.Next(); {
				_, v := it.Element()
				if v.IsNull() {
					return cty.NilVal, function.NewArgErrorf(0, "the list must not contain null")
				}
				if v.True() != all {
					return cty.BoolVal(!all), nil
				}
			}
			return cty.BoolVal(all), nil
		},
	})
}

var allTrueFunc = boolListFunc(true)
var anyTrueFunc = boolListFunc(false)

// oneFunc returns the only element of a list or set, null when it is empty.
var oneFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		switch {
		case ty.IsListType() || ty.IsSetType():
			return ty.ElementType(), nil
		case ty.IsTupleType() && len(ty.TupleElementTypes()) == 0:
			return cty.DynamicPseudoType, nil
		case ty.IsTupleType() && len(ty.TupleElementTypes()) == 1:
			return ty.TupleElementTypes()[0], nil
		}
		return cty.NilType, function.NewArgErrorf(0, "one takes a list, set or tuple of at most one element")
	},
	Impl: func(args []cty.Value, ret cty.Type) (cty.Value, error) {
		v := args[0]
		switch v.LengthInt() {
		case 0:
			return cty.NullVal(ret), nil
		case 1:
			it := v.ElementIterator()
			it.Next()
			_, e := it.Element()
			return e, nil
		}
		return cty.NilVal, function.NewArgErrorf(0, "the collection has %d elements; one takes at most one", v.LengthInt())
	},
})

var sumFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.List(cty.Number)}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		s := cty.Zero
		for it := args[0].ElementIterator(); it.Next(); {
			_, v := it.Element()
			if v.IsNull() {
				return cty.NilVal, function.NewArgErrorf(0, "the list must not contain null")
			}
			s = s.Add(v)
		}
		return s, nil
	},
})

// resolveFile maps a path of file() to a name inside fsys (rooted at dir).
func resolveFile(dir, p string) (name string, ok bool) {
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return "", false
		}
		p = rel
	}
	name = path.Clean(filepath.ToSlash(p))
	if !fs.ValidPath(name) {
		return "", false
	}
	return name, true
}

func fileFunc(fsys fs.FS, dir string) function.Function {
	return stringFunc([]string{"path"}, func(a []string) (cty.Value, error) {
		name, ok := resolveFile(dir, a[0])
		if !ok || fsys == nil {
			return cty.NilVal, function.NewArgErrorf(0, "%q is outside the configuration directory; file() reads only files inside it", a[0])
		}
		b, err := fs.ReadFile(fsys, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return cty.NilVal, function.NewArgErrorf(0, "no file %q in the configuration directory", a[0])
		case err != nil:
			// Through the os.Root of the folder, a symbolic link that
			// points outside it fails with "path escapes from parent".
			return cty.NilVal, function.NewArgErrorf(0, "%q cannot be read inside the configuration directory (a link to a file outside it is outside too): %v", a[0], unwrapPathError(err))
		}
		if len(b) > maxFileSize {
			return cty.NilVal, function.NewArgErrorf(0, "%q is larger than %d bytes", a[0], maxFileSize)
		}
		if !utf8.Valid(b) {
			return cty.NilVal, function.NewArgErrorf(0, "%q is not UTF-8 text", a[0])
		}
		return cty.StringVal(string(b)), nil
	}, cty.String)
}

func fileExistsFunc(fsys fs.FS, dir string) function.Function {
	return stringFunc([]string{"path"}, func(a []string) (cty.Value, error) {
		name, ok := resolveFile(dir, a[0])
		if !ok || fsys == nil {
			return cty.False, nil
		}
		fi, err := fs.Stat(fsys, name)
		return cty.BoolVal(err == nil && fi.Mode().IsRegular()), nil
	}, cty.Bool)
}

// unwrapPathError drops the operation and path of an *fs.PathError, which
// the message already names.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// typeName names a cty type for messages ("string", "list of string").
func typeName(ty cty.Type) string {
	return textfmt.WithArticle(plainType(ty))
}

// plainType names a type in the words of the configuration's reader, not
// cty's: a literal list ["a", "b"] is "list of strings", never "tuple";
// an object is "object", never "object with attributes ...".
func plainType(ty cty.Type) string {
	switch {
	case ty == cty.String:
		return "string"
	case ty == cty.Number:
		return "number"
	case ty == cty.Bool:
		return "bool (true or false)"
	case ty == cty.DynamicPseudoType:
		return "value of any type"
	case ty.IsTupleType():
		elems := ty.TupleElementTypes()
		for _, e := range elems {
			if !e.Equals(elems[0]) {
				return "list"
			}
		}
		if len(elems) > 0 {
			return "list of " + pluralType(elems[0])
		}
		return "list"
	case ty.IsListType():
		return "list of " + pluralType(ty.ElementType())
	case ty.IsSetType():
		return "set of " + pluralType(ty.ElementType())
	case ty.IsMapType():
		return "map of " + pluralType(ty.ElementType())
	case ty.IsObjectType():
		return "object"
	}
	return ty.FriendlyName()
}

// pluralType is plainType for many values: "strings", "lists of strings".
func pluralType(ty cty.Type) string {
	switch {
	case ty == cty.Bool:
		return "bools"
	case ty == cty.DynamicPseudoType:
		return "values of any type"
	}
	p := plainType(ty)
	if head, rest, ok := strings.Cut(p, " of "); ok {
		return head + "s of " + rest
	}
	return p + "s"
}

// maxElements bounds what range and setproduct may build, so that a typo
// like range(1e9) is an error instead of exhausting memory.
const maxElements = 100_000

// rangeFunc is stdlib's range with a bound on the result size.
var rangeFunc = function.New(&function.Spec{
	VarParam: &function.Parameter{Name: "params", Type: cty.Number},
	Type:     function.StaticReturnType(cty.List(cty.Number)),
	Impl: func(args []cty.Value, ret cty.Type) (cty.Value, error) {
		start, end, step := 0.0, 0.0, 1.0
		f := func(v cty.Value) float64 { x, _ := v.AsBigFloat().Float64(); return x }
		switch len(args) {
		case 1:
			end = f(args[0])
		case 2:
			start, end = f(args[0]), f(args[1])
		case 3:
			start, end, step = f(args[0]), f(args[1]), f(args[2])
		}
		if step != 0 && (end-start)/step > maxElements {
			return cty.NilVal, function.NewArgErrorf(0, "range would have more than %d elements", maxElements)
		}
		return stdlib.RangeFunc.Call(args)
	},
})

// setProductFunc is stdlib's setproduct with a bound on the result size.
var setProductFunc = function.New(&function.Spec{
	VarParam: &function.Parameter{Name: "sets", Type: cty.DynamicPseudoType},
	Type: func(args []cty.Value) (cty.Type, error) {
		return stdlib.SetProductFunc.ReturnType(argTypes(args))
	},
	Impl: func(args []cty.Value, ret cty.Type) (cty.Value, error) {
		n := 1
		for _, a := range args {
			if a.IsKnown() && !a.IsNull() && a.CanIterateElements() {
				n *= max(a.LengthInt(), 1)
				if n > maxElements {
					return cty.NilVal, function.NewArgErrorf(0, "setproduct would have more than %d elements", maxElements)
				}
			}
		}
		return stdlib.SetProductFunc.Call(args)
	},
})

func argTypes(args []cty.Value) []cty.Type {
	out := make([]cty.Type, len(args))
	for i, a := range args {
		out[i] = a.Type()
	}
	return out
}

// fastCollectionFunc is toset (set) or tolist (!set) with a fast path for
// the common case of a tuple whose elements are all known, non-null values
// of one primitive type, such as toset(["Berlin", "Hamburg", ...]). The
// general conversion unifies the element types pairwise, which takes most
// of a second for a for_each over 5,000 names; everything else goes to it.
func fastCollectionFunc(set bool) function.Function {
	general := stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType))
	if set {
		general = stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType))
	}
	return function.New(&function.Spec{
		Params: []function.Parameter{{
			Name: "v", Type: cty.DynamicPseudoType,
			AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true,
		}},
		Type: func(args []cty.Value) (cty.Type, error) {
			if et, ok := uniformTuple(args[0]); ok {
				if set {
					return cty.Set(et), nil
				}
				return cty.List(et), nil
			}
			return general.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
			if _, ok := uniformTuple(args[0]); ok {
				elems := args[0].AsValueSlice()
				if set {
					return cty.SetVal(elems), nil
				}
				return cty.ListVal(elems), nil
			}
			return general.Call(args)
		},
	})
}
