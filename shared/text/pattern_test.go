package text

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPattern_CompilesOnceAtFirstMatch(t *testing.T) {
	p := NewPattern(`^[a-z]+$`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { assert.True(t, p.MatchString("abc")) })
	}
	wg.Wait()
	assert.False(t, p.MatchString("ab1"))

	bad := NewPattern(`(`)
	assert.Panics(t, func() { bad.MatchString("x") }, "a malformed expression panics at its first match")
}

// No package of the service compiles a regular expression at init: every
// function that links the package would pay for it at each cold start
// (text.NewPattern compiles at the first match instead).
func TestPattern_NoneCompiledAtPackageInit(t *testing.T) {
	fset := token.NewFileSet()
	var found []string
	for _, root := range []string{"../../shared", "../../functions"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				g, ok := decl.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				ast.Inspect(g, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok {
						if x, ok := sel.X.(*ast.Ident); ok && x.Name == "regexp" && strings.HasPrefix(sel.Sel.Name, "MustCompile") {
							found = append(found, fset.Position(sel.Pos()).String())
						}
					}
					return true
				})
			}
			return nil
		})
		require.NoError(t, err)
	}
	assert.Empty(t, found, "package-level regexp.MustCompile: use text.NewPattern")
}
