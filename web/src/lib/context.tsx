import { createContext, useContext } from "react";
import type { DashboardConfig } from "../config.ts";

export const ConfigContext = createContext<DashboardConfig | null>(null);

export function useDashboardConfig(): DashboardConfig {
  const config = useContext(ConfigContext);
  if (!config) throw new Error("useDashboardConfig outside ConfigContext");
  return config;
}
