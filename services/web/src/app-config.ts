// What the gateway tells the app at start-up (GET /app-config.json): the auth mode, the identity
// provider's endpoints when it signs users in, and the upload limits. Fetched once per page load.
import { ok, type Schemas } from "@scribe/client";
import { useEffect, useState } from "preact/hooks";
import { api } from "./api";

export type AppConfig = Schemas["AppConfig"];

let loading: Promise<AppConfig> | null = null;

export function appConfig(): Promise<AppConfig> {
  loading ??= ok(api.GET("/app-config.json"));
  return loading;
}

/** The app's configuration once loaded (null before that). */
export function useAppConfig(): AppConfig | null {
  const [config, setConfig] = useState<AppConfig | null>(null);
  useEffect(() => {
    let current = true;
    void appConfig().then((c) => current && setConfig(c));
    return () => {
      current = false;
    };
  }, []);
  return config;
}
