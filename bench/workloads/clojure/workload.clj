;; duplex workload: Clojure 1.11 (AOT-compiled clojure.core and spec) over jQuery's source.
;; Tokenises the file, counts identifiers with persistent maps and transducers, dispatches
;; through a protocol, records and a multimethod, folds with reduce-kv, and evaluates small
;; arithmetic expressions with an interpreter. Deterministic output on stdout.
;;   clojure.main workload.clj JQUERY_JS ROUNDS
(ns duplex.workload
  (:require [clojure.string :as str]
            [clojure.spec.alpha :as s]))

(defprotocol Shape (area [this]) (label [this]))
(defrecord Rect [w h] Shape (area [_] (* w h)) (label [_] "rect"))
(defrecord Circle [r] Shape (area [_] (quot (* 355 r r) 113)) (label [_] "circle"))

(defmulti token-kind (fn [t] (cond (re-matches #"[0-9]+" t) :number
                                   (re-matches #"[A-Za-z_$][A-Za-z0-9_$]*" t) :identifier
                                   :else :punct)))
(defmethod token-kind :number [_] :number)
(defmethod token-kind :identifier [t] (if (#{"var" "function" "return" "if" "else" "for"} t)
                                        :keyword :identifier))
(defmethod token-kind :default [_] :punct)

(s/def ::count pos-int?)
(s/def ::entry (s/tuple string? ::count))

(defn tokens [text]
  (re-seq #"[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+|[{}()\[\];,.=+\-*/<>!&|?:]" text))

(defn evaluate [expr env]
  (cond (number? expr) expr
        (symbol? expr) (get env expr 0)
        (seq? expr) (let [[op & args] expr
                          vals (map #(evaluate % env) args)]
                      (case op + (apply + vals) - (apply - vals) * (apply * vals)
                            max (apply max vals) (throw (ex-info "bad op" {:op op}))))
        :else (throw (ex-info "bad expression" {:expr expr}))))

(defn round [text i]
  (let [toks (tokens text)
        kinds (frequencies (map token-kind toks))
        idents (into {} (comp (filter #(= :identifier (token-kind %)))
                              (map (fn [t] [t 1])))
                     (take (+ 2000 (* 37 i)) toks))
        counts (persistent! (reduce (fn [m t] (assoc! m t (inc (get m t 0))))
                                    (transient {}) (take 20000 toks)))
        top (take 5 (sort-by (fn [[t n]] [(- n) t]) counts))
        shapes (for [k (range 1 40)] (if (even? k) (->Rect k (inc k)) (->Circle k)))
        areas (reduce-kv (fn [acc kind xs] (assoc acc kind (reduce + (map area xs))))
                         (sorted-map) (group-by label shapes))
        value (try (evaluate (list '+ (list '* 'a 'b) (list 'max 3 'c 7) (list 'pow 2)) {'a i})
                   (catch clojure.lang.ExceptionInfo e (str "caught " (:op (ex-data e)))))]
    (str "round " i ": " (count toks) " tokens, kinds " (into (sorted-map) kinds)
         ", " (count idents) " identifiers, top " (vec top)
         ", valid " (every? #(s/valid? ::entry %) top)
         ", areas " areas ", " value
         ", expr " (evaluate (list '+ (list '* 'a 'b) (list 'max 3 'c 7)) {'a i 'b 3 'c 5}))))

(let [[path rounds] *command-line-args*
      text (slurp path)]
  (doseq [i (range (Long/parseLong rounds))]
    (println (round text i))))
