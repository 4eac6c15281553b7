"use client";
/**
 * May the person approve, in this chat, what their own turns ask for (docs/teams.md)? Not when their role lacks the
 * approve right (an editor), nor when the site asks for a second person (a chat's asker is its author): then the
 * cards say who approves instead of offering Approve, and the change waits on its review page.
 */
import { createContext, useContext } from "react";

export type ChatApproval = { canApprove: true } | { canApprove: false; waitsFor: "approver" | "second-person" };

export const ChatApprovalContext = createContext<ChatApproval>({ canApprove: true });

export const useChatApproval = () => useContext(ChatApprovalContext);
