package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/aws-cdk-go/awscdk/v2/cxapi"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/mail/sesmail"
)

// functionIn returns the named function's resource and its role's
// statements in tmpl.
func functionIn(t *testing.T, tmpl assertions.Template, name string) (obj, []obj) {
	t.Helper()
	fns := *tmpl.FindResources(jsii.String("AWS::Lambda::Function"), obj{"Properties": obj{"Description": FunctionDescription(name)}})
	if len(fns) != 1 {
		t.Fatalf("%d functions described %q", len(fns), FunctionDescription(name))
	}
	var fn obj
	for _, f := range fns {
		fn = *f
	}
	roleID := fmt.Sprint(fn["Properties"].(obj)["Role"].(obj)["Fn::GetAtt"].([]any)[0])
	var out []obj
	for _, p := range *tmpl.FindResources(jsii.String("AWS::IAM::Policy"), nil) {
		props := (*p)["Properties"].(obj)
		if slices.ContainsFunc(props["Roles"].([]any), func(r any) bool { return fmt.Sprint(r.(obj)["Ref"]) == roleID }) {
			out = append(out, statements(*p)...)
		}
	}
	return fn, out
}

// envOf is a function's environment.
func envOf(fn obj) obj {
	vars, _ := fn["Properties"].(obj)["Environment"].(obj)["Variables"].(obj)
	return vars
}

// sesStatements are the statements naming an SES action.
func sesStatements(sts []obj) []obj {
	var out []obj
	for _, st := range sts {
		if slices.ContainsFunc(strs(st["Action"]), func(a string) bool { return strings.HasPrefix(a, "ses:") }) {
			out = append(out, st)
		}
	}
	return out
}

// With a mail domain (context mailFromDomain), email is sent through SES:
// one configuration set suppressing bounces and complaints, the domain's
// identity sending under it with its DKIM records in an output; each
// function with mail actions is told the sender and the configuration
// set and may send from that identity under that set alone, and read the
// account's suppression list; no other function may call SES or is told
// either.
func TestMail(t *testing.T) {
	// GIVEN the default test stack, with a mail domain
	sets := *template.FindResources(jsii.String("AWS::SES::ConfigurationSet"), nil)
	// THEN it has one configuration set, suppressing bounces and complaints
	if len(sets) != 1 {
		t.Fatalf("%d configuration sets, want 1", len(sets))
	}
	var setID string
	for id, cs := range sets {
		setID = id
		props := (*cs)["Properties"].(obj)
		got := fmt.Sprint(props["SuppressionOptions"])
		if want := fmt.Sprint(obj{"SuppressedReasons": []any{"BOUNCE", "COMPLAINT"}}); got != want {
			t.Errorf("suppression options %s, want %s", got, want)
		}
	}
	// AND the domain's identity, sending under the set by default, and its DKIM records as an output
	must(t, "identity", func() {
		template.HasResourceProperties(jsii.String("AWS::SES::EmailIdentity"), obj{
			"EmailIdentity":              testMailDomain,
			"ConfigurationSetAttributes": obj{"ConfigurationSetName": obj{"Ref": setID}},
		})
		template.HasOutput(jsii.String(OutputMailDKIM), obj{"Value": assertions.Match_AnyValue()})
	})

	senders := 0
	for _, f := range functions {
		fn, sts := functionIn(t, template, f.Name)
		vars := envOf(fn)
		ses := sesStatements(sts)
		if len(f.MailActions) == 0 {
			// AND a function without mail actions may not call SES, and is told nothing of it
			for _, v := range []string{mail.EnvFrom, mail.EnvConfigurationSet, sesmail.EnvSending} {
				if val, ok := vars[v]; ok {
					t.Errorf("%s declares no mail actions but is told %s = %v", f.Name, v, val)
				}
			}
			if len(ses) > 0 {
				t.Errorf("%s declares no mail actions but is granted %v", f.Name, ses)
			}
			continue
		}
		senders++
		// AND a sender is told its From and the set, and sends as usual
		if got := fmt.Sprint(vars[mail.EnvFrom]); got != `"Book Platform" <no-reply@`+testMailDomain+`>` {
			t.Errorf("%s: %s = %s", f.Name, mail.EnvFrom, got)
		}
		if got, want := fmt.Sprint(vars[mail.EnvConfigurationSet]), fmt.Sprint(obj{"Ref": setID}); got != want {
			t.Errorf("%s: %s = %s, want %s", f.Name, mail.EnvConfigurationSet, got, want)
		}
		if _, ok := vars[sesmail.EnvSending]; ok {
			t.Errorf("%s: %s is set: email would not be sent", f.Name, sesmail.EnvSending)
		}
		// AND it may send on the identity and the set alone, and read the suppression list (no resource)
		granted := map[string]string{}
		for _, st := range ses {
			for _, a := range strs(st["Action"]) {
				granted[a] = fmt.Sprint(st["Resource"])
			}
		}
		if got, want := slices.Sorted(func(yield func(string) bool) {
			for a := range granted {
				if !yield(a) {
					return
				}
			}
		}), slices.Sorted(slices.Values(f.MailActions)); !slices.Equal(got, want) {
			t.Errorf("%s: SES actions %v, want its mail actions %v", f.Name, got, want)
		}
		identityID := ""
		for id := range *template.FindResources(jsii.String("AWS::SES::EmailIdentity"), nil) {
			identityID = id
		}
		if res := granted["ses:SendEmail"]; !strings.Contains(res, ":identity/ map[Ref:"+identityID+"]") || !strings.Contains(res, ":configuration-set/ map[Ref:"+setID+"]") ||
			strings.Count(res, "Fn::Join") != 2 || strings.Contains(res, "*") {
			t.Errorf("%s: ses:SendEmail on %s, want the identity and the configuration set alone", f.Name, res)
		}
		if res := granted["ses:GetSuppressedDestination"]; res != "*" {
			t.Errorf("%s: ses:GetSuppressedDestination on %s, want * (the account's list has no ARN)", f.Name, res)
		}
	}
	if senders == 0 {
		t.Error("no function sends email: the relay should have mail actions (withSynthetic)")
	}
}

// Without a mail domain (the hardened test stack) nothing of SES is
// made, no function may call it, the senders run with sending off, and
// the synthesis warns.
func TestMail_off(t *testing.T) {
	for _, kind := range []string{"AWS::SES::ConfigurationSet", "AWS::SES::EmailIdentity"} {
		if n := len(*hardened.FindResources(jsii.String(kind), nil)); n != 0 {
			t.Errorf("%d %s without a mail domain", n, kind)
		}
	}
	for _, f := range functions {
		fn, sts := functionIn(t, hardened, f.Name)
		vars := envOf(fn)
		if ses := sesStatements(sts); len(ses) > 0 {
			t.Errorf("%s is granted SES without a sending identity: %v", f.Name, ses)
		}
		_, from := vars[mail.EnvFrom]
		if got := fmt.Sprint(vars[sesmail.EnvSending]); (len(f.MailActions) > 0) != (got == sesmail.SendingOff) || from {
			t.Errorf("%s: %s = %s, %s set %v; want off for a sender, unset otherwise", f.Name, sesmail.EnvSending, got, mail.EnvFrom, from)
		}
	}
	warned := false
	for _, m := range *assembly.GetStackByName(hardenedStack.StackName()).Messages() {
		if m.Level == cxapi.SynthesisMessageLevel_WARNING && strings.Contains(fmt.Sprint(m.Entry.Data), CtxMailFromDomain+" is not set") {
			warned = true
		}
	}
	if !warned {
		t.Error("no synth warning about the missing mailFromDomain")
	}
}

// The mail settings are checked before anything is made.
func TestMailPlan(t *testing.T) {
	for _, c := range []struct{ domain, from, want, err string }{
		{domain: "", want: ""},
		{domain: "Mail.Example.com.", want: `"Book Platform" <no-reply@mail.example.com>`},
		{domain: "mail.example.com", from: "Shop <hello@mail.example.com>", want: `"Shop" <hello@mail.example.com>`},
		{domain: "mail.example.com", from: "hello@other.example", err: "not at"},
		{domain: "no-reply@mail.example.com", err: CtxMailFromDomain},
		{domain: "localhost", err: CtxMailFromDomain},
		{domain: "mail.example.com", from: "not an address", err: CtxMailFrom},
	} {
		got, err := mailPlan(c.domain, c.from)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("mailPlan(%q, %q) = %q, %v; want an error naming %s", c.domain, c.from, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("mailPlan(%q, %q) = %q, %v; want %q", c.domain, c.from, got, err, c.want)
		}
	}
}
