package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
)

// Every reference in every template, nested ones included, names a
// resource, a parameter or a pseudo parameter of that template, and the
// references and DependsOn between a template's resources form no cycle.
// CloudFormation refuses either at deploy time, synthesis notices
// neither, and both are easy to make by moving resources between a stack
// and its nested stacks: CDK resolves a reference across stacks only in
// resource properties, not in an update policy (newOperationsStack), and
// a nested stack that read what reads it would close a cycle.
func TestTemplates_ReferencesResolveWithoutCycles(t *testing.T) {
	for _, s := range []awscdk.Stack{deployedStack, stack, hardenedStack} {
		for path, tmpl := range stackTemplates(t, s) {
			resources := tmpl["Resources"].(map[string]any)
			params, _ := tmpl["Parameters"].(map[string]any)
			edges := map[string][]string{}
			for id, r := range resources {
				for _, target := range references(r) {
					_, isResource := resources[target]
					_, isParam := params[target]
					switch {
					case isResource:
						edges[id] = append(edges[id], target)
					case !isParam && !strings.HasPrefix(target, "AWS::"):
						t.Errorf("%s: %s refers to %s, which the template does not have", path, id, target)
					}
				}
			}
			if cycle := findCycle(edges); cycle != nil {
				t.Errorf("%s: circular dependency %s", path, strings.Join(cycle, " -> "))
			}
		}
	}
}

// references lists the logical IDs a resource names: Ref, Fn::GetAtt
// (anywhere: properties, update policy) and DependsOn.
func references(v any) []string {
	var out []string
	var visit func(any)
	visit = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch k {
				case "Ref":
					if s, ok := x.(string); ok {
						out = append(out, s)
						continue
					}
				case "Fn::GetAtt":
					if a, ok := x.([]any); ok && len(a) > 0 {
						out = append(out, fmt.Sprint(a[0]))
						continue
					}
				case "DependsOn":
					switch d := x.(type) {
					case string:
						out = append(out, d)
					case []any:
						for _, s := range d {
							out = append(out, fmt.Sprint(s))
						}
					}
					continue
				}
				visit(x)
			}
		case []any:
			for _, x := range v {
				visit(x)
			}
		}
	}
	visit(v)
	return out
}

// findCycle returns a cycle of the graph, or nil.
func findCycle(edges map[string][]string) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(string) []string
	visit = func(n string) []string {
		state[n] = open
		stack = append(stack, n)
		for _, m := range edges[n] {
			switch state[m] {
			case open:
				i := slices.Index(stack, m)
				return append(slices.Clone(stack[i:]), m)
			case unseen:
				if c := visit(m); c != nil {
					return c
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
		return nil
	}
	nodes := make([]string, 0, len(edges))
	for n := range edges {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	for _, n := range nodes {
		if state[n] == unseen {
			if c := visit(n); c != nil {
				return c
			}
		}
	}
	return nil
}

func TestFindCycle(t *testing.T) {
	if c := findCycle(map[string][]string{"a": {"b", "c"}, "b": {"c"}, "c": nil}); c != nil {
		t.Errorf("a graph without cycle: %v", c)
	}
	if c := findCycle(map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}}); len(c) != 4 || c[0] != c[3] {
		t.Errorf("a -> b -> c -> a: %v", c)
	}
}
