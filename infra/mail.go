package main

import (
	"fmt"
	netmail "net/mail"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsses"
	"github.com/aws/jsii-runtime-go"
	"github.com/bookplatform/backend/shared/groups"
	"github.com/bookplatform/backend/shared/mail"
	"github.com/bookplatform/backend/shared/mail/sesmail"
)

// CDK context keys of email (README, "Deploying"): the domain email is
// sent from, which the stack makes an SES identity of, and the From of
// every email (default "Book Platform <no-reply@<mailFromDomain>>").
const (
	CtxMailFromDomain = "mailFromDomain"
	CtxMailFrom       = "mailFrom"
)

// accountLevelMail are the SES actions that name no resource: the
// account's suppression list (IAM documents "*" for them).
var accountLevelMail = []string{"ses:GetSuppressedDestination"}

// OutputMailDKIM is the output listing the DKIM records to publish.
const OutputMailDKIM = "MailDkimRecords"

// mailSetup is how the functions that send email (groups.Function
// .MailActions) send it.
type mailSetup struct {
	// off: no sending identity (context mailFromDomain unset): the
	// functions run with MAIL_SENDING=off and get no SES grant.
	off bool
	// from is their MAIL_FROM; configSet the configuration set they send
	// under; identityArn and configSetArn what SendEmail is granted on.
	from                      string
	configSet                 awsses.ConfigurationSet
	identityArn, configSetArn string
}

// mailPlan checks the email settings: the domain, and a From at it.
func mailPlan(domain, from string) (string, error) {
	domain = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(domain), "."))
	if domain == "" {
		return "", nil
	}
	if strings.ContainsAny(domain, "@/ ") || !strings.Contains(domain, ".") {
		return "", fmt.Errorf("%s must be a domain such as mail.example.com, got %q", CtxMailFromDomain, domain)
	}
	if from == "" {
		from = "Book Platform <no-reply@" + domain + ">"
	}
	a, err := netmail.ParseAddress(from)
	if err != nil {
		return "", fmt.Errorf("%s must be an address such as \"Book Platform <no-reply@%s>\", got %q", CtxMailFrom, domain, from)
	}
	if at := a.Address[strings.LastIndex(a.Address, "@")+1:]; !strings.EqualFold(at, domain) {
		return "", fmt.Errorf("%s %q is not at %s %q: SES sends only from a verified identity", CtxMailFrom, from, CtxMailFromDomain, domain)
	}
	return a.String(), nil
}

// newMail makes what sending email needs, when some function sends it:
// the configuration set every email is sent under, which puts an
// address that bounced or complained on the account's suppression list
// (the senders check it first: sesmail), and the domain identity email is
// sent from, with Easy DKIM (its three CNAME records are an output: SES
// verifies the domain once they are published). Without context
// mailFromDomain there is no identity to send from: the stack makes
// neither, says so in a synth warning, and the senders run with sending
// off (each email logged, not sent: docs/decisions.md).
func newMail(stack awscdk.Stack, functions []groups.Function, props *BackendStackProps) *mailSetup {
	var senders []string
	for _, f := range functions {
		if len(f.MailActions) > 0 {
			senders = append(senders, f.Name)
		}
	}
	if len(senders) == 0 {
		return nil
	}
	from, err := mailPlan(props.MailFromDomain, props.MailFrom)
	if err != nil {
		panic("infra: " + err.Error())
	}
	if from == "" {
		awscdk.Annotations_Of(stack).AddWarningV2(jsii.String("bookplatform:"+CtxMailFromDomain), jsii.String(fmt.Sprintf(
			"%s is not set: no SES identity or configuration set is made, and the functions that send email (%s) run with %s=%s: each email is logged, not sent. "+
				"Set it in cdk.json or with -c %s=<your mail domain> (README, Deploying)",
			CtxMailFromDomain, strings.Join(senders, ", "), sesmail.EnvSending, sesmail.SendingOff, CtxMailFromDomain)))
		return &mailSetup{off: true}
	}
	domain := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(props.MailFromDomain), "."))
	cs := awsses.NewConfigurationSet(stack, jsii.String("MailConfigurationSet"), &awsses.ConfigurationSetProps{
		SuppressionReasons: awsses.SuppressionReasons_BOUNCES_AND_COMPLAINTS,
		ReputationMetrics:  jsii.Bool(true),
		SendingEnabled:     jsii.Bool(true),
	})
	identity := awsses.NewEmailIdentity(stack, jsii.String("MailIdentity"), &awsses.EmailIdentityProps{
		Identity:         awsses.Identity_Domain(jsii.String(domain)),
		ConfigurationSet: cs,
	})
	var records []*string
	for i, r := range *identity.DkimRecords() {
		if i > 0 {
			records = append(records, jsii.String("; "))
		}
		records = append(records, r.Name, jsii.String(" CNAME "), r.Value)
	}
	output(stack, OutputMailDKIM, awscdk.Fn_Join(jsii.String(""), &records),
		"Publish these CNAME records in "+domain+"'s DNS: SES verifies the sending identity (and signs with DKIM) once they resolve")
	configSetArn := stack.FormatArn(&awscdk.ArnComponents{
		Service: jsii.String("ses"), Resource: jsii.String("configuration-set"), ResourceName: cs.ConfigurationSetName(),
		ArnFormat: awscdk.ArnFormat_SLASH_RESOURCE_NAME,
	})
	return &mailSetup{from: from, configSet: cs, identityArn: *identity.EmailIdentityArn(), configSetArn: *configSetArn}
}

// grantMail lets fn send email as f declares (f.MailActions) and tells it
// how: SendEmail on the sending identity and the configuration set alone,
// the suppression list's read on the account (it names no resource), and
// MAIL_FROM and SES_CONFIGURATION_SET; with sending off, no grant and
// MAIL_SENDING=off.
func grantMail(fn awslambda.Function, f groups.Function, m *mailSetup) {
	if len(f.MailActions) == 0 || m == nil {
		return
	}
	if m.off {
		fn.AddEnvironment(jsii.String(sesmail.EnvSending), jsii.String(sesmail.SendingOff), nil)
		return
	}
	fn.AddEnvironment(jsii.String(mail.EnvFrom), jsii.String(m.from), nil)
	fn.AddEnvironment(jsii.String(mail.EnvConfigurationSet), m.configSet.ConfigurationSetName(), nil)
	var onIdentity, onAccount []string
	for _, a := range f.MailActions {
		if slices.Contains(accountLevelMail, a) {
			onAccount = append(onAccount, a)
		} else {
			onIdentity = append(onIdentity, a)
		}
	}
	if len(onIdentity) > 0 {
		fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("SendEmail"),
			Actions:   jsii.Strings(onIdentity...),
			Resources: jsii.Strings(m.identityArn, m.configSetArn),
		}))
	}
	if len(onAccount) > 0 {
		fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Sid:       jsii.String("SuppressionList"),
			Actions:   jsii.Strings(onAccount...),
			Resources: jsii.Strings("*"),
		}))
	}
}
