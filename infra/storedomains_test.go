package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/cxapi"
	"github.com/bookplatform/backend/shared/api/storesapi"
)

func TestStoreDomainsPlan(t *testing.T) {
	for name, c := range map[string]struct {
		ops    OpsProps
		origin string
		create bool
		says   string
	}{
		"an origin":                    {origin: "shop.example.com", create: true},
		"no origin":                    {says: "storefrontOrigin is not set"},
		"switched off":                 {ops: OpsProps{NoStoreDomains: true}, origin: "shop.example.com", says: "storeDomains=false"},
		"switched off and without one": {ops: OpsProps{NoStoreDomains: true}, says: "storeDomains=false"},
	} {
		create, note := storeDomainsPlan(c.ops, c.origin)
		if create != c.create || !strings.Contains(note, c.says) || (!create && !strings.Contains(note, "503")) {
			t.Errorf("%s: create %v, %q", name, create, note)
		}
	}
	o, err := OpsFromContext(appWith(map[string]any{CtxStoreDomains: "false"}).Node())
	if err != nil || !o.NoStoreDomains {
		t.Errorf("storeDomains=false: %+v, %v", o, err)
	}
	if _, err := OpsFromContext(appWith(map[string]any{CtxStoreDomains: "later"}).Node()); err == nil || !strings.Contains(err.Error(), CtxStoreDomains) {
		t.Errorf("storeDomains=later: %v", err)
	}
}

// The stack as `make synth` makes it without storefrontOrigin: a warning
// at synthesis, no distribution that would serve nothing, and functions
// told of none and granted none (custom domains answer 503).
func TestStoreDomains_WithoutOrigin(t *testing.T) {
	tmpl := assertions.Template_FromJSON(toMap(assembly.GetStackByName(deployedStack.StackName()).Template()), nil)
	var warned bool
	for _, m := range *assembly.GetStackByName(deployedStack.StackName()).Messages() {
		if m.Level == cxapi.SynthesisMessageLevel_WARNING && strings.Contains(fmt.Sprint(m.Entry.Data), "storefrontOrigin is not set") {
			warned = true
		}
	}
	if !warned {
		t.Error("no synth warning about the missing storefrontOrigin")
	}
	dists := *tmpl.FindResources(strp("AWS::CloudFront::Distribution"), obj{"Properties": obj{"DistributionConfig": obj{"ConnectionMode": "tenant-only"}}})
	if len(dists) != 0 {
		t.Errorf("%d store-domains distributions without an origin", len(dists))
	}
	for id, fn := range *tmpl.FindResources(strp("AWS::Lambda::Function"), nil) {
		if v, ok := (*fn)["Properties"].(obj)["Environment"].(obj)["Variables"].(obj)[storesapi.EnvDistributionID]; ok {
			t.Errorf("%s: %s = %v", id, storesapi.EnvDistributionID, v)
		}
	}
	for id, p := range *tmpl.FindResources(strp("AWS::IAM::Policy"), nil) {
		if s := fmt.Sprint((*p)["Properties"]); strings.Contains(s, "cloudfront:") || strings.Contains(s, "acm:") {
			t.Errorf("%s grants CloudFront or ACM actions without the distribution", id)
		}
	}
	outputs := fmt.Sprint(*tmpl.FindOutputs(strp("*"), nil))
	if strings.Contains(outputs, OutputStoreDist) {
		t.Errorf("outputs name the distribution: %s", outputs)
	}
}

func appWith(kv map[string]any) awscdk.App { return awscdk.NewApp(&awscdk.AppProps{Context: &kv}) }

func toMap(v any) *map[string]any {
	m := v.(map[string]any)
	return &m
}

func strp(s string) *string { return &s }
