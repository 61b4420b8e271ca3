package deploy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// kustomization is the part of kustomize's file the manifests use (it has
// no type in k8s.io/api).
type kustomization struct {
	metav1.TypeMeta `json:",inline"`
	Namespace       string   `json:"namespace"`
	Resources       []string `json:"resources"`
	Images          []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

// manifests decodes every object of deploy/kubernetes strictly into its
// Kubernetes API type: an unknown or misspelt field fails the test.
func manifests(t *testing.T) (map[string]any, *kustomization) {
	t.Helper()
	files, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	objects := map[string]any{}
	var kust *kustomization
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			var meta metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				t.Fatalf("%s, document %d: %v", f, i+1, err)
			}
			var obj any
			switch meta.APIVersion + "/" + meta.Kind {
			case "apps/v1/Deployment":
				obj = &appsv1.Deployment{}
			case "batch/v1/Job":
				obj = &batchv1.Job{}
			case "v1/Service":
				obj = &corev1.Service{}
			case "v1/Secret":
				obj = &corev1.Secret{}
			case "v1/Namespace":
				obj = &corev1.Namespace{}
			case "autoscaling/v2/HorizontalPodAutoscaler":
				obj = &autoscalingv2.HorizontalPodAutoscaler{}
			case "kustomize.config.k8s.io/v1beta1/Kustomization":
				kust = &kustomization{}
				obj = kust
			default:
				t.Fatalf("%s, document %d: unexpected %s %s", f, i+1, meta.APIVersion, meta.Kind)
			}
			if err := yaml.UnmarshalStrict(doc, obj); err != nil {
				t.Fatalf("%s, document %d (%s): %v", f, i+1, meta.Kind, err)
			}
			objects[fmt.Sprintf("%s/%s", meta.Kind, name(obj))] = obj
		}
	}
	if kust == nil {
		t.Fatal("no kustomization.yaml")
	}
	return objects, kust
}

func name(obj any) string {
	if o, ok := obj.(interface{ GetName() string }); ok {
		return o.GetName()
	}
	return ""
}

func TestKubernetesManifests(t *testing.T) {
	objects, kust := manifests(t)

	t.Run("kustomization lists every file", func(t *testing.T) {
		files, _ := filepath.Glob("kubernetes/*.yaml")
		var want []string
		for _, f := range files {
			if b := filepath.Base(f); b != "kustomization.yaml" {
				want = append(want, b)
			}
		}
		got := slices.Sorted(slices.Values(kust.Resources))
		if !slices.Equal(got, want) {
			t.Errorf("resources %v, want %v", got, want)
		}
		var images []string
		for _, im := range kust.Images {
			images = append(images, im.Name)
		}
		if !slices.Equal(images, []string{"broadside-portal", "broadside-worker"}) {
			t.Errorf("images %v", images)
		}
	})

	worker, ok := objects["Deployment/broadside-worker"].(*appsv1.Deployment)
	if !ok {
		t.Fatal("no Deployment broadside-worker")
	}
	t.Run("the worker has what the sandbox needs", func(t *testing.T) {
		pod := worker.Spec.Template.Spec
		if len(pod.Containers) != 1 {
			t.Fatalf("%d containers", len(pod.Containers))
		}
		c := pod.Containers[0]
		sc := c.SecurityContext
		switch {
		case sc == nil || sc.Privileged == nil || !*sc.Privileged:
			t.Error("not privileged: the cgroup file system stays read-only and SANDBOX=required refuses to start")
		case sc.RunAsUser == nil || *sc.RunAsUser != 0:
			t.Error("not root: the worker cannot make cgroups")
		case sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeUnconfined:
			t.Error("seccomp not unconfined: bubblewrap cannot create namespaces")
		case sc.ProcMount == nil || *sc.ProcMount != corev1.UnmaskedProcMount:
			t.Error("/proc masked: each sandbox's /proc is refused")
		case sc.AppArmorProfile == nil || sc.AppArmorProfile.Type != corev1.AppArmorProfileTypeUnconfined:
			t.Error("AppArmor confines bubblewrap")
		}
		// The worker must be the container's first process: alone in its
		// cgroup, it makes its bots' cgroups beneath it.
		if len(c.Command) != 0 || len(c.Args) != 0 {
			t.Errorf("command %v %v replaces the image's entrypoint (worker)", c.Command, c.Args)
		}
		env := map[string]string{}
		for _, e := range c.Env {
			env[e.Name] = e.Value
		}
		if env["SANDBOX"] != "required" {
			t.Errorf("SANDBOX=%q, want required", env["SANDBOX"])
		}
		work := ""
		for _, m := range c.VolumeMounts {
			if m.MountPath == env["WORK_DIR"] {
				work = m.Name
			}
		}
		if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == work && v.EmptyDir != nil }) {
			t.Errorf("WORK_DIR %q is not a local emptyDir of the pod's own", env["WORK_DIR"])
		}
		if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
			t.Error("the pod's service account token is mounted where bots run")
		}
		if g := pod.TerminationGracePeriodSeconds; g == nil || *g < 300 {
			t.Errorf("termination grace %v, shorter than WORKER_SHUTDOWN_GRACE (5m)", g)
		}
		if !slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return env["METRICS_ADDR"] == fmt.Sprintf(":%d", p.ContainerPort) }) {
			t.Errorf("METRICS_ADDR %q is not a declared port", env["METRICS_ADDR"])
		}
	})

	t.Run("the autoscaler scales the workers by the queue", func(t *testing.T) {
		hpa, ok := objects["HorizontalPodAutoscaler/broadside-worker"].(*autoscalingv2.HorizontalPodAutoscaler)
		if !ok {
			t.Fatal("no HorizontalPodAutoscaler broadside-worker")
		}
		if ref := hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != worker.Name {
			t.Errorf("scales %s %s", ref.Kind, ref.Name)
		}
		if len(hpa.Spec.Metrics) != 1 || hpa.Spec.Metrics[0].External == nil ||
			hpa.Spec.Metrics[0].External.Metric.Name != "broadside_matches_waiting" {
			t.Errorf("metrics %+v, want the external broadside_matches_waiting", hpa.Spec.Metrics)
		}
		doc, err := os.ReadFile("../docs/operations.md")
		if err != nil || !bytes.Contains(doc, []byte("broadside_matches_waiting")) {
			t.Error("docs/operations.md does not give the adapter's rule for broadside_matches_waiting")
		}
	})

	t.Run("nothing else runs privileged", func(t *testing.T) {
		for key, obj := range objects {
			var pod *corev1.PodSpec
			switch o := obj.(type) {
			case *appsv1.Deployment:
				pod = &o.Spec.Template.Spec
			case *batchv1.Job:
				pod = &o.Spec.Template.Spec
			}
			if pod == nil || key == "Deployment/broadside-worker" {
				continue
			}
			if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
				t.Errorf("%s may run as root", key)
			}
			for _, c := range pod.Containers {
				sc := c.SecurityContext
				if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
					sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
					t.Errorf("%s: container %s is not locked down", key, c.Name)
				}
			}
			if !strings.HasPrefix(pod.Containers[0].Image, "broadside-") {
				t.Errorf("%s runs %s", key, pod.Containers[0].Image)
			}
		}
	})
}
